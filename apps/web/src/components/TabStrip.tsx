import { useRef } from 'react';
import { createPortal } from 'react-dom';
import { inputFromFileList } from '../files';
import type { FileTab, Tabs } from '../hooks/useTabs';

/** The panel the shown file tab's views are in (the strip's tabs control it). */
export const FILE_PANEL_ID = 'filetab-panel';
const tabId = (key: number) => `filetab-${key}`;

/**
 * The open files, one tab each (WAI-ARIA tabs): ←, →, Home and End move between them,
 * Delete closes the focused one (as does its ×, or Ctrl/Cmd+W where the browser passes it on).
 */
export function TabStrip({ tabs }: { tabs: Tabs }) {
  const { list, active } = tabs;
  if (list.length === 0) return null;
  const go = (at: number) => {
    const next = list[(at + list.length) % list.length];
    tabs.activate(next.key);
    document.getElementById(tabId(next.key))?.focus();
  };
  const close = (tab: FileTab, at: number) => {
    const focused = document.activeElement?.id === tabId(tab.key);
    const next = list[at + 1] ?? list[at - 1];
    tabs.close(tab.key);
    if (focused && next) requestAnimationFrame(() => document.getElementById(tabId(next.key))?.focus());
  };
  return (
    <div className="filetabs" role="tablist" aria-label="Open files" data-testid="file-tabs">
      {list.map((tab, at) => {
        const selected = tab.key === active?.key;
        const label = tab.client ? tab.name : `${tab.name} (${tab.opening ? 'opening…' : 'reopen'})`;
        return (
          <div key={tab.key} className={`filetab${selected ? ' active' : ''}`}>
            <button
              type="button"
              role="tab"
              id={tabId(tab.key)}
              aria-selected={selected}
              aria-controls={selected ? FILE_PANEL_ID : undefined}
              aria-keyshortcuts="Delete"
              tabIndex={selected ? 0 : -1}
              title={`${tab.name}${tab.format ? ` · ${tab.format.toUpperCase()}` : ''} (Delete closes it)`}
              data-testid="file-tab"
              data-name={tab.name}
              onClick={() => tabs.activate(tab.key)}
              onKeyDown={(e) => {
                const move = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: list.length - 1 }[e.key];
                if (move !== undefined) {
                  e.preventDefault();
                  go(move);
                } else if (e.key === 'Delete') {
                  e.preventDefault();
                  close(tab, at);
                }
              }}
            >
              <span className="filetab-name">{label}</span>
              {tab.format && <span className="filetab-format">{tab.format.toUpperCase()}</span>}
            </button>
            {/* The tab's own Delete key is the keyboard's way; this × is for the pointer (a control inside a tab is not allowed). */}
            <button
              type="button"
              className="filetab-close"
              aria-hidden="true"
              tabIndex={-1}
              title={`close ${tab.name}`}
              data-testid="file-tab-close"
              onClick={() => close(tab, at)}
            >
              ×
            </button>
          </div>
        );
      })}
    </div>
  );
}

/**
 * A tab whose file is opening, or a local file a link named (the page was reloaded): a browser gives a page a file only when the
 * user picks it, so the tab asks for it, and shows it where the link left it once picked.
 */
export function ReopenPanel({ tab, tabs }: { tab: FileTab; tabs: Tabs }) {
  const input = useRef<HTMLInputElement>(null);
  if (tab.opening) return createPortal(<p className="reopen muted">opening {tab.name}…</p>, tab.container);
  const folder = !!(tab.link && 'local' in tab.link && tab.link.folder);
  return createPortal(
    <section className="reopen" data-testid="reopen">
      <h2>{tab.name}</h2>
      <p>
        This {folder ? 'folder' : 'file'} was opened from your computer. A browser does not let a page read it
        again after a reload; pick it again and it opens where you left it
        {tab.link?.bookmarks?.length ? ', with its bookmarks' : ''}.
      </p>
      <button type="button" onClick={() => input.current?.click()}>
        Reopen {folder ? 'folder' : 'file'}…
      </button>
      <input
        ref={input}
        type="file"
        hidden
        aria-label={`Reopen ${tab.name}`}
        data-testid="reopen-input"
        {...(folder ? { webkitdirectory: '' } : { multiple: true })}
        onChange={(e) => {
          const picked = e.currentTarget.files && inputFromFileList(e.currentTarget.files, folder);
          if (picked) tabs.reopen(tab.key, picked);
          e.currentTarget.value = '';
        }}
      />
    </section>,
    tab.container,
  );
}
