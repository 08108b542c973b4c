import type { ParserClient } from '../client';
import { useNodeFields } from '../hooks/useNodeFields';
import type { Navigation } from '../hooks/useNavigation';
import type { SelectionHistory } from '../hooks/useSelectionHistory';
import type { FormatEntry, SessionInfo } from '../protocol';
import { HexView } from './HexView';
import { HistoryButtons } from './HistoryButtons';
import { UnknownView } from './Panels';
import { SearchBar } from './SearchBar';
import { SelectionTools } from './SelectionTools';
import { Tree } from './Tree';

/** The structure tab: the tree (when a plugin drew one) beside the hex view of the file it is about. */
export function StructureTab({
  client,
  session,
  nav,
  formats,
  treeVersion,
  history,
}: {
  client: ParserClient;
  session: SessionInfo;
  nav: Navigation;
  formats: FormatEntry[];
  treeVersion: number;
  history: SelectionHistory;
}) {
  const { selected, hexFile, range } = nav;
  const fields = useNodeFields(client, session.sessionId, selected);
  const nodeInView = !!selected && selected.node.file === hexFile;
  const nodeRange = selected
    ? { start: selected.node.offset, end: selected.node.offset + selected.node.length }
    : null;
  const selection = range ?? (nodeInView ? nodeRange : null);
  // Detected and read: a container (read through another format) or a bare convertible is explained instead.
  const known = !!session.format && (session.role === 'format' || session.canValidate);
  // A tree of one node is worth showing when that node is marked: it says what is wrong where.
  const root = session.root;
  const hasTree = !!root && (root.childCount > 0 || (root.problems?.length ?? 0) > 0);
  const sessionId = session.sessionId;
  return (
    <div id="panel-structure" role="tabpanel" aria-labelledby="tab-structure" className="structure">
      {!known && <UnknownView session={session} formats={formats} />}
      <div className={`split${hasTree ? '' : ' no-tree'}`}>
        {hasTree && root && (
          <Tree
            key={`${sessionId}:${treeVersion}`}
            client={client}
            sessionId={sessionId}
            root={root}
            selectedKey={selected ? selected.path.join('/') : null}
            onSelect={nav.selectNode}
            reveal={nav.reveal}
          />
        )}
        {hexFile !== undefined && (
          <HexView
            client={client}
            sessionId={sessionId}
            file={hexFile}
            label={hexFile}
            size={nav.hexSize}
            selection={selection}
            selectionLabel={range ? 'selection' : selected?.node.name}
            fields={!range && nodeInView ? fields : undefined}
            onRange={nav.setRange}
            tools={
              <>
                <HistoryButtons history={history} />
                <SearchBar
                  client={client}
                  sessionId={sessionId}
                  file={hexFile}
                  cursor={nav.cursor}
                  size={nav.hexSize}
                  onFound={(offset, length) => {
                    nav.setRange({ start: offset, end: offset + length });
                    nav.scrollTo(offset);
                  }}
                />
                <SelectionTools
                  client={client}
                  sessionId={sessionId}
                  file={hexFile}
                  range={selection}
                  name={range ? hexFile : (selected?.node.name ?? 'bytes')}
                />
              </>
            }
            cursor={nav.cursor}
            onCursor={nav.setCursor}
            onPick={(offset) => nav.pick(hexFile, offset, false)}
            scrollRequest={nav.scrollRequest}
          />
        )}
      </div>
    </div>
  );
}
