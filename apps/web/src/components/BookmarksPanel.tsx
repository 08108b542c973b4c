import { useState } from 'react';
import { formatBytes, hexOffset } from '../format';
import type { Bookmarks } from '../hooks/useBookmarks';
import type { Bookmark } from '../shareLink';

const rangeText = (b: Bookmark) =>
  `0x${hexOffset(b.start, 1)}–0x${hexOffset(b.end - 1, 1)} · ${formatBytes(b.end - b.start)}`;

/** Named byte ranges: keep the current selection, jump back to one, drop one. Shared links carry them. */
export function BookmarksPanel({
  bookmarks,
  selection,
  onJump,
}: {
  bookmarks: Bookmarks;
  /** What "Bookmark" would keep now, if anything is selected. */
  selection: Bookmark | undefined;
  onJump(bookmark: Bookmark): void;
}) {
  const [name, setName] = useState('');
  return (
    <section className="panel bookmarks" aria-labelledby="bookmarks-h" data-testid="bookmarks">
      <h2 id="bookmarks-h">Bookmarks ({bookmarks.list.length})</h2>
      <form
        className="bookmark-add"
        onSubmit={(event) => {
          event.preventDefault();
          bookmarks.add(name);
          setName('');
        }}
      >
        <input
          type="text"
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="name (optional)"
          aria-label="Bookmark name (optional)"
        />
        <button
          type="submit"
          disabled={!selection}
          title={selection ? `keep ${rangeText(selection)}` : undefined}
        >
          Bookmark selection
        </button>
      </form>
      {bookmarks.list.length === 0 ? (
        <p className="muted">No bookmarks yet: select bytes or a node, then bookmark it.</p>
      ) : (
        <ul className="bookmark-list">
          {bookmarks.list.map((b, i) => {
            const label = b.name ?? rangeText(b);
            return (
              <li
                // Two bookmarks may keep the same range under the same name: the place is their identity.
                // biome-ignore lint/suspicious/noArrayIndexKey: see above.
                key={i}
                data-testid="bookmark"
                data-start={b.start}
                data-end={b.end}
                data-file={b.file ?? ''}
              >
                <button
                  type="button"
                  className="bookmark-jump"
                  onClick={() => onJump(b)}
                  title="select these bytes"
                >
                  <span className="name wrap">{label}</span>
                  {(b.name || b.file) && (
                    <span className="muted wrap">
                      {b.file ? `${b.file} · ` : ''}
                      {b.name ? rangeText(b) : ''}
                    </span>
                  )}
                </button>
                <button
                  type="button"
                  className="bookmark-remove"
                  onClick={() => bookmarks.remove(i)}
                  aria-label={`Remove bookmark ${label}`}
                  title="remove"
                >
                  ×
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
