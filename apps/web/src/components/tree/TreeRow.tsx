import { displayValue, hexOffset } from '../../format';
import { ProblemMark } from '../DefectList';
import { type Row, WINDOW } from './rows';

export const ROW_HEIGHT = 24;

/** One row of the virtualized tree: a node, a child still loading, or a "more" row. */
export function TreeRow({
  row,
  index,
  id,
  active,
  selected,
  open,
  onActivate,
  onToggle,
  onMore,
}: {
  row: Row;
  index: number;
  id: string;
  active: boolean;
  selected: boolean;
  open: boolean;
  /** A click on the row: it becomes the active one (a node is selected). */
  onActivate(): void;
  onToggle(): void;
  onMore(): void;
}) {
  const style = { top: index * ROW_HEIGHT, paddingLeft: 6 + row.depth * 16 } as const;
  if (row.type === 'loading')
    return (
      // biome-ignore lint/a11y/useFocusableInteractive: the tree holds focus (aria-activedescendant).
      <div id={id} className="tree-row muted" style={style} role="treeitem" aria-level={row.depth + 1}>
        loading…
      </div>
    );
  if (row.type === 'more')
    return (
      // biome-ignore lint/a11y/useFocusableInteractive lint/a11y/useKeyWithClickEvents: the tree holds focus (aria-activedescendant) and handles keys.
      <div
        id={id}
        className={`tree-row more${active ? ' active' : ''}`}
        style={style}
        role="treeitem"
        aria-level={row.depth + 1}
        onClick={() => {
          onActivate();
          onMore();
        }}
      >
        {row.direction === 'next'
          ? `▾ next ${Math.min(WINDOW, row.count)} of ${row.count} more`
          : `▴ previous ${Math.min(WINDOW, row.count)}`}
      </div>
    );
  const { node } = row;
  const marked = node.problems?.length
    ? ` marked ${node.problems.some((p) => p.severity === 'error') ? 'error' : 'warning'}`
    : '';
  return (
    // biome-ignore lint/a11y/useFocusableInteractive lint/a11y/useKeyWithClickEvents: the tree holds focus (aria-activedescendant) and handles keys.
    <div
      id={id}
      className={`tree-row${selected ? ' selected' : ''}${active ? ' active' : ''}${marked}`}
      style={style}
      role="treeitem"
      aria-level={row.depth + 1}
      aria-selected={selected}
      aria-expanded={node.childCount > 0 ? open : undefined}
      data-testid="tree-node"
      data-name={node.name}
      data-offset={node.offset}
      data-length={node.length}
      data-problems={node.problems?.map((p) => p.code).join(' ') || undefined}
      title={`${node.name} (${node.kind}) at byte ${node.offset}, ${node.length} bytes${node.file ? ` in ${node.file}` : ''}`}
      onClick={onActivate}
    >
      <span
        className="twisty"
        aria-hidden="true"
        onClick={(e) => {
          e.stopPropagation();
          if (node.childCount > 0) onToggle();
        }}
      >
        {node.childCount > 0 ? (open ? '▾' : '▸') : ''}
      </span>
      <span className="node-name">{node.name}</span>
      <span className="node-kind">{node.kind}</span>
      {node.problems?.length ? <ProblemMark problems={node.problems} /> : null}
      {node.value !== undefined && node.value !== null && (
        <span className="node-value">{displayValue(node.value)}</span>
      )}
      <span className="node-range">
        0x{hexOffset(node.offset, 4)} +{node.length}
      </span>
    </div>
  );
}
