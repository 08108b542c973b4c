import { useRef, useState } from 'react';
import { inputFromFileList } from '../files';
import { formatBytes } from '../format';
import type { ByteStats, OpenInput } from '../protocol';
import { useTheme } from '../theme';

export function OpenBar({
  onOpen,
  stats,
  busy,
  compact,
}: {
  onOpen(input: OpenInput): void;
  stats: ByteStats | null;
  busy: string | null;
  /** A file is open: the tagline goes, so the controls and the byte counter keep one row. */
  compact: boolean;
}) {
  const fileInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const [url, setUrl] = useState('');
  return (
    <header className={`openbar${compact ? ' compact' : ''}`}>
      <h1>
        binscope <span className="muted tagline">· look inside binary data files, in your browser</span>
      </h1>
      <div className="open-controls">
        <button type="button" onClick={() => fileInput.current?.click()}>
          Open files…
        </button>
        <input
          ref={fileInput}
          type="file"
          multiple
          hidden
          data-testid="file-input"
          aria-label="Open files"
          onChange={(e) => {
            const input = e.currentTarget.files && inputFromFileList(e.currentTarget.files, false);
            if (input) onOpen(input);
            e.currentTarget.value = '';
          }}
        />
        <button type="button" onClick={() => folderInput.current?.click()}>
          Open folder…
        </button>
        <input
          ref={folderInput}
          type="file"
          hidden
          data-testid="folder-input"
          aria-label="Open folder"
          {...{ webkitdirectory: '' }}
          onChange={(e) => {
            const input = e.currentTarget.files && inputFromFileList(e.currentTarget.files, true);
            if (input) onOpen(input);
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
            placeholder="https://…/file (read with range requests)"
            aria-label="File URL"
            data-testid="url-input"
          />
          <button type="submit">Open URL</button>
        </form>
      </div>
      <div className="status" aria-live="polite">
        {busy && <span className="busy">{busy}</span>}
        {stats && (
          <span
            className="counter"
            data-testid="bytes-counter"
            data-read={stats.bytesRead}
            data-size={stats.size}
            title={`${stats.requests} ${stats.remote ? 'HTTP requests' : 'reads'}`}
          >
            {stats.remote ? 'fetched' : 'read'} {formatBytes(stats.bytesRead)} of {formatBytes(stats.size)}
            {stats.remote ? ` · ${stats.requests} request${stats.requests === 1 ? '' : 's'}` : ''}
          </span>
        )}
      </div>
      <ThemeToggle />
    </header>
  );
}

function ThemeToggle() {
  const [theme, setTheme] = useTheme();
  const dark = theme === 'dark';
  return (
    <button
      type="button"
      className="theme-toggle"
      aria-pressed={dark}
      data-testid="theme-toggle"
      title={dark ? 'switch to the light theme' : 'switch to the dark theme'}
      onClick={() => setTheme(dark ? 'light' : 'dark')}
    >
      <span aria-hidden="true">{dark ? '☾' : '☀'}</span> Dark theme
    </button>
  );
}
