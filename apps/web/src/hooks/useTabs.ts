import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { ParserClient } from '../client';
import type { FormatEntry, OpenInput, SessionInfo } from '../protocol';
import { readPluginParams, readTabsLink, type TabLink, writeTabsLink } from '../shareLink';
import type { Formats } from './useFormats';
import type { HistoryTab } from './useSelectionHistory';
import { opening } from './useSession';

/**
 * How many files can be open at once. Each has a worker of its own (its readers, caches and
 * byte sources), so the page's memory stays bounded.
 */
export const MAX_TABS = 8;

export interface FileTab {
  key: number;
  /** What the strip shows: the file's name and its detected format. */
  name: string;
  format: string | null;
  /** Its own parsing worker; none while a local file waits to be picked again. */
  client: ParserClient | null;
  /** The session the worker opened, shown when the tab mounts. */
  info: SessionInfo | null;
  /** The worker is opening it (its panel says so). */
  opening?: boolean;
  /** The view a link asked for, put back once the session shows (or the local file it names). */
  link?: TabLink;
  /**
   * Where the tab's views live. A hidden tab's element is taken out of the document, not
   * unmounted: its state (selection, tree, hex position, search, data page) stays as it was,
   * and the page has one set of element ids.
   */
  container: HTMLDivElement;
}

export interface Tabs {
  list: FileTab[];
  active: FileTab | undefined;
  busy: string | null;
  open(input: OpenInput): Promise<void>;
  /** Opens a local file again in the tab that named it (after a reload). */
  reopen(key: number, input: OpenInput): Promise<void>;
  activate(key: number): void;
  close(key: number): void;
  loadPlugin(plugin: { url: string } | { file: File }): Promise<FormatEntry[]>;
  /** A tab's current view, for the address bar. */
  share(key: number, view: TabLink): void;
  /** A tab's session changed (a conversion's output opened in it). */
  describe(key: number, session: SessionInfo): void;
  historyTab(key: number): HistoryTab;
}

const shortName = (session: SessionInfo) =>
  session.source === 'url'
    ? (session.name.split(/[?#]/)[0].split('/').filter(Boolean).pop() ?? session.name)
    : (session.mainFile ?? session.name);

/** A worker for a new tab, with the plugins the page has loaded. */
async function clientWith(loaded: Array<{ url: string } | { file: File }>): Promise<ParserClient> {
  const client = new ParserClient();
  // A plugin that failed to load was reported when the page loaded it.
  for (const plugin of [...readPluginParams().map((url) => ({ url })), ...loaded])
    await client.request({ type: 'loadPlugin', ...plugin }).catch(() => {});
  return client;
}

/** Ctrl/Cmd+W closes the shown tab, where the browser lets a page have that key (Chrome keeps it). */
function useCloseKey(close: (key: number) => void, activeRef: React.RefObject<number | null>) {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.key.toLowerCase() !== 'w') return;
      if (activeRef.current === null) return;
      event.preventDefault();
      close(activeRef.current);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [close, activeRef]);
}

/** What the strip calls a file before it is open. */
const inputName = (input: OpenInput) =>
  input.kind === 'url'
    ? (input.url.split(/[?#]/)[0].split('/').filter(Boolean).pop() ?? input.url)
    : (input.folder ?? input.files[0]?.path.split('/').pop() ?? 'files');

const swap = (list: FileTab[], tab: FileTab) => list.map((t) => (t.key === tab.key ? tab : t));

let nextKey = 1;
function newTab(fields: Omit<FileTab, 'key' | 'container'>): FileTab {
  const container = document.createElement('div');
  container.className = 'filetab-body';
  return { key: nextKey++, container, ...fields };
}

/** The open files: one tab each, its own worker, the address bar listing the ones a link can hold. */
export function useTabs(formats: Formats, onFailure: (message: string | null) => void): Tabs {
  const [list, setList] = useState<FileTab[]>([]);
  const [activeKey, setActiveKey] = useState<number | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const listRef = useRef(list);
  listRef.current = list;
  const activeRef = useRef(activeKey);
  activeRef.current = activeKey;
  const views = useRef(new Map<number, TabLink>());
  const plugins = useRef<Array<{ url: string } | { file: File }>>([]);

  // The address bar is the link's until the tabs it lists are open again.
  const restored = useRef(false);
  const writeLink = useCallback(() => {
    if (!restored.current) return;
    const tabs = listRef.current.filter((t) => views.current.has(t.key));
    const active = tabs.findIndex((t) => t.key === activeRef.current);
    writeTabsLink(
      tabs.map((t) => views.current.get(t.key)!),
      Math.max(0, active),
    );
  }, []);

  const update = useCallback((next: FileTab[], active: number | null) => {
    listRef.current = next;
    activeRef.current = active;
    setList(next);
    setActiveKey(active);
  }, []);

  const openInto = useOpenInto({ listRef, activeRef, views, plugins, update, onFailure, setBusy });

  // The tab the user last opened: tabs the link restores after it (the plugins load first, so a
  // quick pick can come before them) are added behind it, never shown in its place.
  const userTab = useRef<number | null>(null);
  const open = useCallback(
    (input: OpenInput) => {
      const opening = openInto(input, undefined, undefined);
      // openInto shows the new tab before its first await.
      userTab.current = activeRef.current;
      return opening;
    },
    [openInto],
  );
  const reopen = useCallback(
    (key: number, input: OpenInput) => {
      userTab.current = key;
      return openInto(input, key, listRef.current.find((t) => t.key === key)?.link);
    },
    [openInto],
  );

  const activate = useCallback((key: number) => update(listRef.current, key), [update]);

  const close = useCallback(
    (key: number) => {
      const old = listRef.current;
      const at = old.findIndex((t) => t.key === key);
      if (at < 0) return;
      old[at].client?.terminate();
      views.current.delete(key);
      const next = old.filter((t) => t.key !== key);
      const active =
        activeRef.current === key ? (next[Math.min(at, next.length - 1)]?.key ?? null) : activeRef.current;
      update(next, active);
      if (next.length === 0) document.title = 'binscope';
    },
    [update],
  );

  const loadPlugin = useCallback(
    async (plugin: { url: string } | { file: File }) => {
      const entries = await formats.load(plugin);
      plugins.current.push(plugin);
      for (const tab of listRef.current)
        await tab.client?.request({ type: 'loadPlugin', ...plugin }).catch(() => {});
      return entries;
    },
    [formats.load],
  );

  const share = useCallback(
    (key: number, view: TabLink) => {
      views.current.set(key, view);
      writeLink();
    },
    [writeLink],
  );

  const describe = useCallback(
    (key: number, session: SessionInfo) => {
      const tab = listRef.current.find((t) => t.key === key);
      if (!tab || (tab.name === shortName(session) && tab.format === session.format)) return;
      const next = listRef.current.map((t) =>
        t.key === key ? { ...t, name: shortName(session), format: session.format } : t,
      );
      update(next, activeRef.current);
    },
    [update],
  );

  const historyTab = useCallback(
    (key: number): HistoryTab => ({
      isActive: () => activeRef.current === key,
      activate: () => activate(key),
    }),
    [activate],
  );

  useRestoreTabs(formats.ready, openInto, views, update, listRef, userTab, () => {
    restored.current = true;
    writeLink();
  });

  // The shown tab names the page and the link.
  const active = list.find((t) => t.key === activeKey);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the list's order and the shown tab make the link.
  useEffect(() => {
    if (active) document.title = `${active.name} · binscope`;
    writeLink();
  }, [active, list.length, writeLink]);
  useCloseKey(close, activeRef);

  return useMemo(
    () => ({
      list,
      active,
      busy,
      open,
      reopen,
      activate,
      close,
      loadPlugin,
      share,
      describe,
      historyTab,
    }),
    [list, active, busy, open, reopen, activate, close, loadPlugin, share, describe, historyTab],
  );
}

interface OpenDeps {
  listRef: React.RefObject<FileTab[]>;
  activeRef: React.RefObject<number | null>;
  views: React.RefObject<Map<number, TabLink>>;
  plugins: React.RefObject<Array<{ url: string } | { file: File }>>;
  update(next: FileTab[], active: number | null): void;
  onFailure(message: string | null): void;
  setBusy(busy: string | null): void;
}

/** Opens a file in a new tab (or in the tab `replace`, a local file picked again), in a worker of its own. */
function useOpenInto({ listRef, activeRef, views, plugins, update, onFailure, setBusy }: OpenDeps) {
  return useCallback(
    async (input: OpenInput, replace: number | undefined, link: TabLink | undefined) => {
      if (replace === undefined && listRef.current.length >= MAX_TABS) {
        onFailure(`${MAX_TABS} files are open: close one to open another.`);
        return;
      }
      onFailure(null);
      setBusy(opening(input));
      // The tab shows at once, saying it is opening: what follows (a click on its views) is its own.
      const before = activeRef.current;
      const existing = listRef.current.find((t) => t.key === replace);
      const fields = { name: inputName(input), format: null, client: null, info: null, link, opening: true };
      const tab = existing ? { ...existing, ...fields } : newTab(fields);
      update(existing ? swap(listRef.current, tab) : [...listRef.current, tab], tab.key);
      const client = await clientWith(plugins.current);
      try {
        const info = await client.request({ type: 'open', input });
        // Closed while it opened: nothing keeps the worker.
        if (!listRef.current.some((t) => t.key === tab.key)) return client.terminate();
        const ready = { ...tab, name: shortName(info), format: info.format, client, info, opening: false };
        views.current.delete(tab.key);
        update(swap(listRef.current, ready), activeRef.current);
      } catch (e) {
        client.terminate();
        onFailure((e as Error).message);
        if (existing) update(swap(listRef.current, existing), activeRef.current);
        else if (listRef.current.some((t) => t.key === tab.key))
          update(
            listRef.current.filter((t) => t.key !== tab.key),
            activeRef.current === tab.key ? before : activeRef.current,
          );
      } finally {
        setBusy(null);
      }
    },
    [listRef, activeRef, views, plugins, update, onFailure, setBusy],
  );
}

/**
 * Once the plugins are in, reopens the tabs the address bar lists, in order: remote files by
 * their URL, local ones as tabs asking for the file again.
 */
function useRestoreTabs(
  ready: boolean,
  openInto: (input: OpenInput, replace: number | undefined, link: TabLink | undefined) => Promise<void>,
  views: React.RefObject<Map<number, TabLink>>,
  update: (next: FileTab[], active: number | null) => void,
  listRef: React.RefObject<FileTab[]>,
  userTab: React.RefObject<number | null>,
  done: () => void,
) {
  const started = useRef(false);
  // A tab the user opened meanwhile stays the shown one.
  const picked = () => {
    const key = userTab.current;
    return key !== null && listRef.current.some((t) => t.key === key) ? key : null;
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, when the plugins are in.
  useEffect(() => {
    if (!ready || started.current) return;
    started.current = true;
    const { tabs, active } = readTabsLink();
    (async () => {
      const keys: number[] = [];
      for (const link of tabs) {
        const before = listRef.current.length;
        if ('url' in link) {
          await openInto({ kind: 'url', url: link.url }, undefined, link);
          const user = picked();
          if (user !== null) update(listRef.current, user);
        } else {
          const tab = newTab({ name: link.local, format: null, client: null, info: null, link });
          views.current.set(tab.key, link);
          update([...listRef.current, tab], picked() ?? tab.key);
        }
        if (listRef.current.length > before) keys.push(listRef.current[listRef.current.length - 1].key);
        else keys.push(-1);
      }
      const shown = keys[active] ?? -1;
      if (shown >= 0 && picked() === null) update(listRef.current, shown);
    })().finally(done);
  }, [ready]);
}

/**
 * The element the shown tab's views are put in. Taking a tab out of the document loses its
 * elements' scroll offsets (the tree's list is one): they are kept and put back.
 */
export function useTabHost(tab: FileTab | undefined) {
  const host = useRef<HTMLDivElement>(null);
  const container = tab?.container;
  useLayoutEffect(() => {
    const el = host.current;
    if (!el || !container) return;
    el.appendChild(container);
    for (const [node, top, left] of scrolls.get(container) ?? []) {
      node.scrollTop = top;
      node.scrollLeft = left;
    }
    return () => {
      const kept: Array<[Element, number, number]> = [];
      for (const node of container.querySelectorAll('*'))
        if (node.scrollTop || node.scrollLeft) kept.push([node, node.scrollTop, node.scrollLeft]);
      scrolls.set(container, kept);
      container.remove();
    };
  }, [container]);
  return host;
}

const scrolls = new WeakMap<HTMLElement, Array<[Element, number, number]>>();
