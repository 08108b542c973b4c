import { useRef, useState } from 'react';
import { inputFromDrop, inputFromFileList } from '../../files';
import type { OpenInput } from '../../protocol';

/** How the second file is chosen: as the main one is (files, a folder, a URL, a drop). */
export function CompareOpen({ onOpen, busy }: { onOpen(input: OpenInput): void; busy: boolean }) {
  const fileInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const [url, setUrl] = useState('');
  const [over, setOver] = useState(false);
  const picked = (list: FileList | null, folder: boolean) => {
    const input = list && inputFromFileList(list, folder);
    if (input) onOpen(input);
  };
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: a drop target; keyboard users have the pickers beside it.
    <div
      className={`compare-open${over ? ' over' : ''}`}
      data-testid="compare-drop"
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={(e) => {
        if (e.currentTarget === e.target) setOver(false);
      }}
      onDrop={async (e) => {
        // Claimed: the page's own drop handler then leaves the open file alone.
        e.preventDefault();
        setOver(false);
        const input = await inputFromDrop(e.dataTransfer);
        if (input) onOpen(input);
      }}
    >
      <span className="compare-open-label">Compare with</span>
      <button type="button" disabled={busy} onClick={() => fileInput.current?.click()}>
        a file…
      </button>
      <input
        ref={fileInput}
        type="file"
        multiple
        hidden
        data-testid="compare-file-input"
        aria-label="Compare with files"
        onChange={(e) => {
          picked(e.currentTarget.files, false);
          e.currentTarget.value = '';
        }}
      />
      <button type="button" disabled={busy} onClick={() => folderInput.current?.click()}>
        a folder…
      </button>
      <input
        ref={folderInput}
        type="file"
        hidden
        aria-label="Compare with a folder"
        {...{ webkitdirectory: '' }}
        onChange={(e) => {
          picked(e.currentTarget.files, true);
          e.currentTarget.value = '';
        }}
      />
      <form
        className="url-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (url.trim()) onOpen({ kind: 'url', url: url.trim() });
        }}
      >
        <input
          type="url"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          placeholder="https://…/other-file"
          aria-label="URL of the file to compare with"
          data-testid="compare-url-input"
        />
        <button type="submit" disabled={busy}>
          a URL
        </button>
      </form>
      <span className="muted">or drop it here</span>
    </div>
  );
}
