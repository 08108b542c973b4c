import { hexOffset } from '../format';
import type { SearchMatch } from '../protocol';

export interface SearchResultsProps {
  matches: SearchMatch[];
  /** More matches exist past the listed ones (the worker stops at its limit). */
  more: boolean;
  /** The match shown in the hex view, if it is one of these. */
  current: number | null;
  onPick(match: SearchMatch): void;
  onClose(): void;
}

/** Every match of a search, in file order: each one selects its bytes in the hex view. */
export function SearchResults({ matches, more, current, onPick, onClose }: SearchResultsProps) {
  const count = `${matches.length.toLocaleString('en')}${more ? '+' : ''}`;
  return (
    <section className="search-results" aria-label="Search matches" data-testid="search-results">
      <div className="search-results-head">
        <span data-testid="search-count">
          {matches.length === 0
            ? 'no match in the file'
            : `${count} match${matches.length === 1 ? '' : 'es'}`}
        </span>
        <button type="button" onClick={onClose} aria-label="Close the list of matches">
          ✕
        </button>
      </div>
      {matches.length > 0 && (
        <ol className="search-results-list">
          {matches.map((m) => (
            <li key={m.offset}>
              <button
                type="button"
                className={m.offset === current ? 'current' : undefined}
                aria-current={m.offset === current ? 'true' : undefined}
                data-offset={m.offset}
                onClick={() => onPick(m)}
              >
                0x{hexOffset(m.offset, 1)}
                <span className="muted"> · {m.length} B</span>
              </button>
            </li>
          ))}
        </ol>
      )}
      {more && (
        <p className="muted" data-testid="search-more">
          more… only the first {matches.length.toLocaleString('en')} matches are listed; next and previous go
          on past them.
        </p>
      )}
    </section>
  );
}
