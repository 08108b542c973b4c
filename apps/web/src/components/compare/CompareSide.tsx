import type { ParserClient } from '../../client';
import type { Navigation } from '../../hooks/useNavigation';
import type { SessionInfo } from '../../protocol';
import { HexView } from '../HexView';
import { Tree } from '../Tree';

/** One file of a comparison: its tree over its hex view, with a navigation of its own. */
export function CompareSide({
  client,
  session,
  nav,
  side,
}: {
  client: ParserClient;
  session: SessionInfo;
  nav: Navigation;
  side: 'A' | 'B';
}) {
  const { selected, hexFile, range } = nav;
  const nodeInView = !!selected && selected.node.file === hexFile;
  const selection =
    range ??
    (nodeInView && selected
      ? { start: selected.node.offset, end: selected.node.offset + selected.node.length }
      : null);
  const root = session.root;
  const headingId = `compare-side-${side}`;
  const hasTree = !!root && root.childCount > 0;
  return (
    <section
      className={`compare-side${hasTree ? '' : ' no-tree'}`}
      aria-labelledby={headingId}
      data-testid={`compare-side-${side}`}
    >
      <h3 id={headingId} className="compare-side-name">
        <span className="compare-letter">{side}</span>{' '}
        <span className="wrap">{session.mainFile ?? session.name}</span>
      </h3>
      {hasTree && root && (
        <Tree
          key={session.sessionId}
          client={client}
          sessionId={session.sessionId}
          root={root}
          selectedKey={selected ? selected.path.join('/') : null}
          onSelect={nav.selectNode}
          reveal={nav.reveal}
        />
      )}
      {hexFile !== undefined && (
        <HexView
          client={client}
          sessionId={session.sessionId}
          file={hexFile}
          label={hexFile}
          size={nav.hexSize}
          selection={selection}
          selectionLabel={range ? 'difference' : selected?.node.name}
          onRange={nav.setRange}
          cursor={nav.cursor}
          onCursor={nav.setCursor}
          onPick={(offset) => nav.pick(hexFile, offset, false)}
          scrollRequest={nav.scrollRequest}
        />
      )}
    </section>
  );
}
