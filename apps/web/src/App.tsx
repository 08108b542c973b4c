import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { ParserClient } from './client';
import { ShowBytesContext } from './components/BytesLink';
import { CompareView } from './components/compare/CompareView';
import { ConvertView } from './components/convert/ConvertView';
import { RecordsView } from './components/data/RecordsView';
import { EmptyPage } from './components/EmptyPage';
import { OpenBar } from './components/OpenBar';
import { Sidebar } from './components/Sidebar';
import { StructureTab } from './components/StructureTab';
import { FILE_PANEL_ID, ReopenPanel, TabStrip } from './components/TabStrip';
import { ViewTabs } from './components/ViewTabs';
import { inputFromDrop } from './files';
import { type Bookmarks, useBookmarks } from './hooks/useBookmarks';
import { type Formats, useFormats } from './hooks/useFormats';
import { type Navigation, useNavigation } from './hooks/useNavigation';
import { type SessionState, useSession } from './hooks/useSession';
import { type SelectionHistory, useSelectionHistory } from './hooks/useSelectionHistory';
import { useShareLink } from './hooks/useShareLink';
import { useStats } from './hooks/useStats';
import { type FileTab, type Tabs, useTabHost, useTabs } from './hooks/useTabs';
import { type Validation, useValidation } from './hooks/useValidation';
import type { LocationView, SessionInfo } from './protocol';
import type { TabLink } from './shareLink';

export function App() {
  const catalog = useMemo(() => new ParserClient(), []);
  const [failure, setFailure] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const formats = useFormats(catalog, setFailure);
  const tabs = useTabs(formats, setFailure);
  const stats = useStats(tabs.active?.client ?? undefined);
  const host = useTabHost(tabs.active);

  const onDrop = async (event: React.DragEvent) => {
    // A drop zone inside the page (the compare view's) took the drop for itself.
    const claimed = event.defaultPrevented;
    event.preventDefault();
    setDragging(false);
    if (claimed) return;
    const input = await inputFromDrop(event.dataTransfer);
    if (input) tabs.open(input);
  };

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: the whole page is a drop target; keyboard users have the pickers.
    <div
      className={`app${dragging ? ' dragging' : ''}`}
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={(e) => {
        if (e.currentTarget === e.target) setDragging(false);
      }}
      onDrop={onDrop}
      data-testid="app"
    >
      <OpenBar onOpen={tabs.open} stats={stats} busy={tabs.busy} compact={tabs.list.length > 0} />
      {failure && (
        <div className="failure" role="alert" data-testid="failure">
          {failure}
          <button type="button" onClick={() => setFailure(null)} aria-label="dismiss">
            ×
          </button>
        </div>
      )}
      <TabStrip tabs={tabs} />
      {tabs.list.length === 0 ? (
        <EmptyPage
          formats={formats.entries}
          onOpen={tabs.open}
          onPlugin={tabs.loadPlugin}
          onFailure={setFailure}
        />
      ) : (
        <div
          ref={host}
          id={FILE_PANEL_ID}
          className="filetab-host"
          role="tabpanel"
          aria-labelledby={tabs.active && `filetab-${tabs.active.key}`}
        />
      )}
      {tabs.list.map((tab) =>
        tab.client && tab.info ? (
          <FileSession key={tab.key} tab={tab} tabs={tabs} formats={formats} onFailure={setFailure} />
        ) : (
          <ReopenPanel key={tab.key} tab={tab} tabs={tabs} />
        ),
      )}
      {dragging && (
        <div className="drop-overlay" aria-hidden="true">
          Drop to open
        </div>
      )}
    </div>
  );
}

/** One open file (a tab): its worker's session and the user's place in it, shown in the tab's element. */
function FileSession({
  tab,
  tabs,
  formats,
  onFailure,
}: {
  tab: FileTab;
  tabs: Tabs;
  formats: Formats;
  onFailure: (message: string | null) => void;
}) {
  const client = tab.client!;
  const sessionState = useState<SessionInfo | null>(null);
  const nav = useNavigation(client, sessionState[0], onFailure);
  const validation = useValidation(client, onFailure);
  const state = useSession(client, sessionState, nav, validation, onFailure);
  // Before the share link: a new history entry is pushed first, then the address bar rewritten in it.
  const history = useSelectionHistory(nav, state.session, tabs.historyTab(tab.key));
  const bookmarks = useBookmarks(state.session, nav);
  const { share, describe } = tabs;
  const report = useCallback((view: TabLink) => share(tab.key, view), [share, tab.key]);
  useShareLink(state.session, nav, bookmarks, history.position, tab.link, report);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the worker opened it before the tab was made.
  useEffect(() => state.adopt(tab.info!), []);
  useEffect(() => {
    if (state.session) describe(tab.key, state.session);
  }, [state.session, describe, tab.key]);
  if (!state.session) return null;
  return createPortal(
    <Workspace
      client={client}
      session={state.session}
      state={state}
      nav={nav}
      validation={validation}
      formats={formats}
      history={history}
      bookmarks={bookmarks}
    />,
    tab.container,
  );
}

/** An open session: its details beside its views (structure, data, conversions). */
function Workspace({
  client,
  session,
  state,
  nav,
  validation,
  formats,
  history,
  bookmarks,
}: {
  client: ParserClient;
  session: SessionInfo;
  state: SessionState;
  nav: Navigation;
  validation: Validation;
  formats: Formats;
  history: SelectionHistory;
  bookmarks: Bookmarks;
}) {
  const { tab, setTab } = state;
  const mainRef = useRef<HTMLElement>(null);
  // What was used to open the file (a sample's button, the empty page) has gone: focus the
  // file's main view rather than leave it on <body>, where the next Tab starts from the top.
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a newly opened session moves focus.
  useEffect(() => {
    const active = document.activeElement;
    if (active && active !== document.body) return;
    mainRef.current
      ?.querySelector<HTMLElement>('[role="tree"], [role="grid"], :scope [role="tabpanel"] [tabindex="0"]')
      ?.focus({ preventScroll: true });
  }, [session.sessionId]);
  /** A value's bytes: to the structure tab, its file in the hex view, the range selected. */
  const showBytes = useCallback(
    (location: LocationView) => {
      setTab('structure');
      nav.showRange(location);
    },
    [setTab, nav.showRange],
  );
  return (
    <div className="workspace">
      <Sidebar
        client={client}
        session={session}
        nav={nav}
        validation={validation}
        bookmarks={bookmarks}
        onBookmark={(b) =>
          showBytes({
            file: b.file ?? session.mainFile ?? nav.hexFile,
            offset: b.start,
            length: b.end - b.start,
          })
        }
        onValidate={state.validate}
        onDefect={(defect) => {
          setTab('structure');
          nav.showDefect(session, defect);
        }}
        onProblem={(problem) => {
          if (problem.offset === undefined) return;
          setTab('structure');
          nav.pick(problem.file ?? session.mainFile ?? nav.hexFile, problem.offset, true);
        }}
      />
      <main className="main" ref={mainRef}>
        <ViewTabs session={session} tab={tab} onTab={setTab} />
        {tab === 'structure' && (
          <StructureTab
            client={client}
            session={session}
            nav={nav}
            formats={formats.entries}
            treeVersion={state.treeVersion}
            history={history}
          />
        )}
        {tab === 'data' && (
          <div id="panel-data" role="tabpanel" aria-labelledby="tab-data" className="data">
            <ShowBytesContext.Provider value={showBytes}>
              <RecordsView key={session.sessionId} client={client} session={session} />
            </ShowBytesContext.Provider>
          </div>
        )}
        {tab === 'convert' && (
          <div id="panel-convert" role="tabpanel" aria-labelledby="tab-convert" className="data">
            <ConvertView key={session.sessionId} client={client} session={session} onOpen={state.adopt} />
          </div>
        )}
        {/* Kept while other tabs show, so a comparison outlives a look at the data. */}
        <div
          id="panel-compare"
          role="tabpanel"
          aria-labelledby="tab-compare"
          className="compare-panel"
          hidden={tab !== 'compare'}
        >
          <CompareView key={session.sessionId} client={client} session={session} />
        </div>
      </main>
    </div>
  );
}
