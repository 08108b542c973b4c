import type { LocatedDefect, NodeProblem } from '../protocol';

/** A problem's mark: an icon and its class in words, so it never rests on colour alone. */
export function ProblemMark({ problems }: { problems: NodeProblem[] }) {
  const errors = problems.filter((p) => p.severity === 'error');
  const severity = errors.length > 0 ? 'error' : 'warning';
  const codes = [...new Set((errors.length > 0 ? errors : problems).map((p) => p.code))];
  return (
    <span
      className={`node-problem ${severity}`}
      data-testid="node-problem"
      data-severity={severity}
      data-code={codes.join(' ')}
      title={problems.map((p) => `${p.severity} ${p.code}: ${p.message}`).join('\n')}
    >
      <span aria-hidden="true">{severity === 'error' ? '✗' : '⚠'}</span> {severity} {codes.join(', ')}
    </span>
  );
}

/** The first defect to show when a broken file opens: the first error, else the first warning. */
export function firstDefect(located: readonly LocatedDefect[]): LocatedDefect | undefined {
  return located.find((d) => d.severity === 'error') ?? located[0];
}

/** Every problem marked in the tree, with its node; clicking one selects that node. */
export function DefectList({
  located,
  onSelect,
}: {
  located: readonly LocatedDefect[];
  onSelect(defect: LocatedDefect): void;
}) {
  if (located.length === 0) return null;
  return (
    <section className="panel" aria-labelledby="defects-h" data-testid="defects">
      <h2 id="defects-h">Defects in the structure ({located.length})</h2>
      <ul className="problems">
        {located.map((d, i) => (
          // Problems have no identity but their place in the list.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above.
          <li key={i} className={d.severity} data-testid="defect" data-code={d.code} data-path={d.path}>
            <button type="button" onClick={() => onSelect(d)} title="select its node">
              <span className="code">
                <span aria-hidden="true">{d.severity === 'error' ? '✗ ' : '⚠ '}</span>
                {d.code}
              </span>
              <span className="where">
                {d.file ? `${d.file} ` : ''}
                {d.offset !== undefined ? `@${d.offset}` : ''}
              </span>
              <span className="msg">{d.message}</span>
              <span className="node-path">{d.path === '' ? '(the whole file)' : d.path}</span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
