import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { isAbort, ParserClient } from './client';
import { DataInspector } from './components/DataInspector';
import { type ByteLocation, ShowBytesContext } from './components/BytesLink';
import { DataPanel } from './components/DataPanel';
import { DefectList, firstDefect } from './components/DefectList';
import { HexView } from './components/HexView';
import { OpenBar } from './components/OpenBar';
import { SampleList } from './components/SampleList';
import { SearchBar } from './components/SearchBar';
import { SelectionTools } from './components/SelectionTools';
import { FilesPanel, ProblemsPanel, SummaryPanel, UnknownView } from './components/Panels';
import { Tree } from './components/Tree';
import { inputFromDrop } from './files';
import { formatNames } from './format-list';
import { readShareLink, writeShareLink } from './shareLink';
import type {
  ByteStats,
  LocatedDefect,
  NodeLocation,
  OpenInput,
  Problem,
  SessionInfo,
  TreeNodeView,
  ValidationReport,
} from './protocol';

type Tab = 'structure' | 'data';

export function App() {
  const client = useMemo(() => new ParserClient(), []);
  const [session, setSession] = useState<SessionInfo | null>(null);
  const [stats, setStats] = useState<ByteStats | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const [tab, setTab] = useState<Tab>('structure');

  const [selected, setSelected] = useState<{ path: number[]; node: TreeNodeView } | null>(null);
  const [reveal, setReveal] = useState<{ location: NodeLocation; token: number } | null>(null);
  const [hexFile, setHexFile] = useState<string | undefined>(undefined);
  const hexFileRef = useRef<string | undefined>(undefined);
  hexFileRef.current = hexFile;
  /** Bumped when inspect mode replaces the tree, so the tree view drops the children it loaded. */
  const [treeVersion, setTreeVersion] = useState(0);
  const [hexSize, setHexSize] = useState(0);
  const [cursor, setCursor] = useState(0);
  const [scrollRequest, setScrollRequest] = useState({ offset: 0, token: 0 });
  /** A range picked by dragging or found by search; it wins over the selected node's range. */
  const [range, setRange] = useState<{ start: number; end: number } | null>(null);
  const [fields, setFields] = useState<Array<{ start: number; end: number }>>([]);

  const [report, setReport] = useState<ValidationReport | null>(null);
  const [validating, setValidating] = useState<AbortController | null>(null);
  const [progress, setProgress] = useState<{ done: number; total?: number } | null>(null);
  const [cancelled, setCancelled] = useState(false);
  /** The run the page shows; an abort from opening another file is not the user's cancel. */
  const currentRun = useRef<AbortController | null>(null);
  const token = useRef(0);

  useEffect(() => {
    client.onStats = setStats;
  }, [client]);

  /** A broken file opens on its first defect: the node selected, its bytes highlighted. */
  const showFirstDefect = useCallback(
    (info: SessionInfo, shownFile: string | undefined) => {
      const defect = firstDefect(info.located);
      const node = defect?.nodes[defect.nodes.length - 1];
      if (!defect || !node) return;
      setSelected({ path: defect.indexPath, node });
      setRange(null);
      setReveal({ location: { path: defect.indexPath, nodes: defect.nodes }, token: ++token.current });
      const file = node.file ?? shownFile;
      if (file !== shownFile) {
        setHexFile(file);
        client
          .request({ type: 'size', sessionId: info.sessionId, file })
          .then(setHexSize)
          .catch(() => {});
      }
      setCursor(node.offset);
      setScrollRequest({ offset: node.offset, token: ++token.current });
    },
    [client],
  );

  /** Validation found errors in a file that opened: show the tree inspect mode marks them in. */
  const reinspect = useCallback(
    (s: SessionInfo, shownFile: string | undefined) => {
      client
        .request({ type: 'inspect', sessionId: s.sessionId })
        .then(({ root, located }) => {
          const next = { ...s, root, located };
          setSession((current) => (current?.sessionId === s.sessionId ? next : current));
          setTreeVersion((v) => v + 1);
          showFirstDefect(next, shownFile);
        })
        .catch(() => {});
    },
    [client, showFirstDefect],
  );

  const validate = useCallback(
    (s: SessionInfo) => {
      const controller = new AbortController();
      currentRun.current = controller;
      setValidating(controller);
      setProgress(null);
      setCancelled(false);
      client
        .request(
          { type: 'validate', sessionId: s.sessionId },
          { signal: controller.signal, onProgress: setProgress },
        )
        .then((result) => {
          setReport(result);
          // Errors only: a valid file with warnings keeps its tree and the user's place in it.
          if (s.located.length === 0 && result.errors.length > 0) reinspect(s, hexFileRef.current);
        })
        .catch((e) => {
          if (isAbort(e)) setCancelled(currentRun.current === controller);
          else setFailure(`validation failed: ${(e as Error).message}`);
        })
        .finally(() => setValidating(null));
    },
    [client, reinspect],
  );

  /** Shows a freshly opened session: summary, tree at the root, hex at byte 0, validation started. */
  const adopt = useCallback(
    (info: SessionInfo) => {
      setSession(info);
      setReport(null);
      currentRun.current = null;
      setCancelled(false);
      setSelected(null);
      setReveal(null);
      setRange(null);
      setCursor(0);
      setTab(info.view === 'h5ad' ? 'data' : 'structure');
      const firstFile =
        info.source === 'directory'
          ? (info.files.find((f) => f.path === 'header.sch') ?? info.files[0])?.path
          : undefined;
      const initialFile = info.root?.file ?? firstFile;
      setHexFile(initialFile);
      setHexSize(
        info.source === 'directory'
          ? (info.files.find((f) => f.path === firstFile)?.size ?? 0)
          : (info.mainSize ?? 0),
      );
      setScrollRequest({ offset: 0, token: ++token.current });
      showFirstDefect(info, initialFile);
      if (info.autoValidate) validate(info);
      document.title = `${info.mainFile ?? info.name} · binscope`;
    },
    [validate, showFirstDefect],
  );

  const open = useCallback(
    async (input: OpenInput) => {
      validating?.abort();
      setFailure(null);
      setBusy(
        input.kind === 'url'
          ? `opening ${input.url}…`
          : `opening ${input.folder ?? (input.files.length === 1 ? input.files[0].path : `${input.files.length} files`)}…`,
      );
      try {
        adopt(await client.request({ type: 'open', input }));
      } catch (e) {
        if (!isAbort(e)) setFailure((e as Error).message);
      } finally {
        setBusy(null);
      }
    },
    [client, adopt, validating],
  );

  // ?url=…&at=…&file=… reopens a remote file at a byte (shareable links).
  const linked = useRef(readShareLink());
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, on load.
  useEffect(() => {
    if (linked.current) open({ kind: 'url', url: linked.current.url });
  }, []);

  const showFile = useCallback(
    async (file: string | undefined) => {
      if (!session) return;
      // A folder's own node (the archive) has no bytes of its own: keep the file shown.
      if (file === undefined && session.source === 'directory') return;
      setHexFile(file);
      setRange(null);
      try {
        setHexSize(await client.request({ type: 'size', sessionId: session.sessionId, file }));
      } catch (e) {
        setFailure((e as Error).message);
      }
    },
    [client, session],
  );

  const selectNode = useCallback(
    (path: number[], node: TreeNodeView) => {
      setSelected({ path, node });
      setRange(null);
      if (node.file !== hexFile) showFile(node.file);
      setCursor(node.offset);
      setScrollRequest({ offset: node.offset, token: ++token.current });
    },
    [hexFile, showFile],
  );

  // The selected node's children, coloured in the hex view so each field's bytes stand out.
  useEffect(() => {
    setFields([]);
    if (!session || !selected || selected.node.childCount === 0) return;
    const controller = new AbortController();
    client
      .request(
        { type: 'children', sessionId: session.sessionId, path: selected.path, start: 0, end: 256 },
        { signal: controller.signal },
      )
      .then((children) =>
        setFields(
          children
            .filter((c) => c.length > 0 && (c.file ?? selected.node.file) === selected.node.file)
            .map((c) => ({ start: c.offset, end: c.offset + c.length }))
            .sort((a, b) => a.start - b.start),
        ),
      )
      .catch(() => {});
    return () => controller.abort();
  }, [client, session, selected]);

  /** A byte or a problem points at an offset: select the node that owns it and reveal it. */
  const pick = useCallback(
    async (file: string | undefined, offset: number, scroll: boolean) => {
      if (!session) return;
      if (file !== hexFile) await showFile(file);
      setRange(null);
      setCursor(offset);
      if (scroll) setScrollRequest({ offset, token: ++token.current });
      if (!session.root || session.root.childCount === 0) return;
      const location = await client.request({ type: 'nodeAt', sessionId: session.sessionId, file, offset });
      const node = location.nodes[location.nodes.length - 1];
      if (!node) return;
      setSelected({ path: location.path, node });
      setReveal({ location, token: ++token.current });
    },
    [client, session, hexFile, showFile],
  );

  // The link's byte is shown once its file is open; from then on the address bar follows the view.
  useEffect(() => {
    if (session?.source !== 'url') return;
    const link = linked.current;
    if (link) {
      linked.current = undefined;
      if (link.at !== undefined) {
        pick(link.file, link.at, true);
        return;
      }
    }
    writeShareLink({
      url: session.name,
      at: cursor || undefined,
      file: hexFile === session.root?.file ? undefined : hexFile,
    });
  }, [session, cursor, hexFile, pick]);

  /** A data cell's bytes: to the structure tab, its file in the hex view, the range selected. */
  const showBytes = useCallback(
    async (location: ByteLocation) => {
      if (!session) return;
      setTab('structure');
      const file = location.file ?? (session.source === 'directory' ? hexFile : session.root?.file);
      if (file !== hexFile) await showFile(file);
      setCursor(location.offset);
      setRange({ start: location.offset, end: location.offset + Math.max(1, location.length) });
      setScrollRequest({ offset: location.offset, token: ++token.current });
    },
    [session, hexFile, showFile],
  );

  const selectDefect = (defect: LocatedDefect) => {
    const node = defect.nodes[defect.nodes.length - 1];
    if (!node) return;
    setTab('structure');
    selectNode(defect.indexPath, node);
    setReveal({ location: { path: defect.indexPath, nodes: defect.nodes }, token: ++token.current });
  };

  const jumpToProblem = (problem: Problem) => {
    if (problem.offset === undefined || !session) return;
    setTab('structure');
    const file = session.source === 'directory' ? problem.file : hexFile;
    pick(file, problem.offset, true);
  };

  const onDrop = async (event: React.DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const input = await inputFromDrop(event.dataTransfer);
    if (input) open(input);
  };

  const selection = selected
    ? { start: selected.node.offset, end: selected.node.offset + selected.node.length }
    : null;
  const nodeInView = !!selected && (selected.node.file ?? undefined) === hexFile;
  const selectionInView = range ?? (nodeInView ? selection : null);
  const known = !!session?.format && session.format !== 'tar';
  // A tree of one node is worth showing when that node is marked: it says what is wrong where.
  const hasTree =
    !!session?.root && (session.root.childCount > 0 || (session.root.problems?.length ?? 0) > 0);

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
      <OpenBar onOpen={open} stats={stats} busy={busy} />
      {failure && (
        <div className="failure" role="alert" data-testid="failure">
          {failure}
          <button type="button" onClick={() => setFailure(null)} aria-label="dismiss">
            ×
          </button>
        </div>
      )}
      {!session ? (
        <main className="empty" data-testid="drop-zone">
          <div className="drop-hint">
            <h2>Drop a file or a folder here</h2>
            <p>
              {formatNames('file')} files, {formatNames('directory')} archive folders (drop the folder), tar
              shards together with their <code>.taridx</code>, or an AnnData <code>.h5ad</code> to convert to
              SCDL.
            </p>
            <p className="muted">
              Nothing is uploaded: files are read in this tab, lazily, a few kilobytes at a time. A URL is
              read with HTTP range requests.
            </p>
            <SampleList onOpen={open} />
          </div>
        </main>
      ) : (
        <div className="workspace">
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the sidebar scrolls on its own; keyboard users must reach its overflow. */}
          <aside className="sidebar" aria-label="File details" tabIndex={0}>
            <SummaryPanel session={session} />
            {(session.format !== null && session.format !== 'tar' && session.format !== 'h5ad') ||
            session.openError ? (
              <ProblemsPanel
                report={report}
                openError={session.openError}
                running={!!validating}
                cancelled={cancelled}
                progress={progress}
                canValidate={!!session.format}
                remote={session.source === 'url'}
                onValidate={() => validate(session)}
                onCancel={() => validating?.abort()}
                onJump={jumpToProblem}
              />
            ) : null}
            <DefectList located={session.located} onSelect={selectDefect} />
            {(hexFile !== undefined || session.source !== 'directory') && (
              <DataInspector client={client} sessionId={session.sessionId} file={hexFile} cursor={cursor} />
            )}
            <FilesPanel session={session} current={hexFile} onShow={(ref) => showFile(ref)} />
          </aside>
          <main className="main">
            <div className="tabs" role="tablist" aria-label="Views">
              {(['structure', 'data'] as const).map((t) => (
                <button
                  key={t}
                  type="button"
                  role="tab"
                  id={`tab-${t}`}
                  aria-selected={tab === t}
                  aria-controls={`panel-${t}`}
                  tabIndex={tab === t ? 0 : -1}
                  disabled={t === 'data' && session.view === 'none'}
                  onClick={() => setTab(t)}
                  onKeyDown={(e) => {
                    if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
                      const next = t === 'structure' ? 'data' : 'structure';
                      if (next === 'data' && session.view === 'none') return;
                      setTab(next);
                      document.getElementById(`tab-${next}`)?.focus();
                    }
                  }}
                >
                  {t === 'structure' ? 'Structure' : session.view === 'h5ad' ? 'Convert to SCDL' : 'Data'}
                </button>
              ))}
            </div>
            {tab === 'structure' ? (
              <div id="panel-structure" role="tabpanel" aria-labelledby="tab-structure" className="structure">
                {!known && <UnknownView session={session} />}
                <div className={`split${hasTree ? '' : ' no-tree'}`}>
                  {hasTree && session.root && (
                    <Tree
                      key={`${session.sessionId}:${treeVersion}`}
                      client={client}
                      sessionId={session.sessionId}
                      root={session.root}
                      selectedKey={selected ? selected.path.join('/') : null}
                      onSelect={selectNode}
                      reveal={reveal}
                    />
                  )}
                  {(hexFile !== undefined || session.source !== 'directory') && (
                    <HexView
                      client={client}
                      sessionId={session.sessionId}
                      file={hexFile}
                      label={
                        session.files.find((f) => f.ref === hexFile)?.path ??
                        hexFile ??
                        session.mainFile ??
                        session.name
                      }
                      size={hexSize}
                      selection={selectionInView}
                      selectionLabel={range ? 'selection' : selected?.node.name}
                      fields={!range && nodeInView ? fields : undefined}
                      onRange={setRange}
                      tools={
                        <>
                          <SearchBar
                            client={client}
                            sessionId={session.sessionId}
                            file={hexFile}
                            cursor={cursor}
                            onFound={(offset, length) => {
                              setCursor(offset);
                              setRange({ start: offset, end: offset + length });
                              setScrollRequest({ offset, token: ++token.current });
                            }}
                          />
                          <SelectionTools
                            client={client}
                            sessionId={session.sessionId}
                            file={hexFile}
                            range={selectionInView}
                            name={
                              range
                                ? (hexFile ?? session.mainFile ?? 'bytes')
                                : (selected?.node.name ?? 'bytes')
                            }
                          />
                        </>
                      }
                      cursor={cursor}
                      onCursor={setCursor}
                      onPick={(offset) => pick(hexFile, offset, false)}
                      scrollRequest={scrollRequest}
                    />
                  )}
                </div>
              </div>
            ) : (
              <div id="panel-data" role="tabpanel" aria-labelledby="tab-data" className="data">
                <ShowBytesContext.Provider value={showBytes}>
                  <DataPanel client={client} session={session} onOpen={adopt} />
                </ShowBytesContext.Provider>
              </div>
            )}
          </main>
        </div>
      )}
      {dragging && (
        <div className="drop-overlay" aria-hidden="true">
          Drop to open
        </div>
      )}
    </div>
  );
}
