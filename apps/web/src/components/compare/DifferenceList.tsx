import type { ComparisonView, DifferenceLocationView, DifferenceSideView } from '../../protocol';

function where(location: DifferenceLocationView | null): string {
  if (!location) return 'location unknown';
  const parts: string[] = [];
  if (location.record !== undefined) parts.push(`record ${location.record}`);
  if (location.field) parts.push(`field ${location.field}`);
  if (location.offset !== undefined)
    parts.push(
      `bytes ${location.offset}${location.length !== undefined ? `..${location.offset + location.length}` : ''}`,
    );
  if (location.file) parts.push(`in ${location.file}`);
  return parts.join(', ');
}

function Value({ side, letter }: { side: DifferenceSideView; letter: 'A' | 'B' }) {
  return (
    <span className="compare-value">
      <span className="compare-letter">{letter}</span>{' '}
      {side.present ? <code>{side.text}</code> : <span className="muted">(absent)</span>}
      <span className="muted compare-where">{where(side.location)}</span>
    </span>
  );
}

/** The differences found, in order; choosing one shows it in both files. */
export function DifferenceList({
  result,
  chosen,
  onChoose,
}: {
  result: ComparisonView;
  chosen: number | null;
  onChoose(index: number): void;
}) {
  return (
    <ol className="compare-differences" aria-label="Differences" data-testid="compare-differences">
      {result.differences.map((d, index) => (
        // Differences have no identity but their place in the comparison.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above.
        <li key={index}>
          <button
            type="button"
            className="compare-difference"
            aria-pressed={chosen === index}
            data-testid="difference"
            data-kind={d.kind}
            data-path={d.path}
            data-a-offset={d.a.location?.offset}
            data-a-length={d.a.location?.length}
            data-b-offset={d.b.location?.offset}
            data-b-length={d.b.location?.length}
            onClick={() => onChoose(index)}
          >
            <span className="compare-path">
              <span className="compare-kind">{d.kind}</span> {d.path}
            </span>
            <Value side={d.a} letter="A" />
            <Value side={d.b} letter="B" />
          </button>
        </li>
      ))}
    </ol>
  );
}
