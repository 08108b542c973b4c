import { useCallback, useEffect, useState } from 'react';
import type { ParserClient } from '../../client';
import { type Navigation, useNavigation } from '../../hooks/useNavigation';
import type { ComparisonView, DifferenceLocationView, SessionInfo } from '../../protocol';
import { CompareOpen } from './CompareOpen';
import { CompareSide } from './CompareSide';
import { DifferenceList } from './DifferenceList';
import { useComparison } from './useComparison';

/** Differing records listed by default (the CLI's --max-records is 5; a page has room for more). */
const DEFAULT_MAX_RECORDS = 20;

/** A difference's place in one file: the node that owns its first byte selected, its bytes in view. */
async function show(nav: Navigation, info: SessionInfo, location: DifferenceLocationView | null) {
  if (!location || location.offset === undefined) return;
  const file = location.file ?? info.mainFile;
  await nav.pick(file, location.offset, true);
  await nav.showRange({ file, offset: location.offset, length: location.length ?? 1 });
}

function Outcome({ result, a, b }: { result: ComparisonView; a: SessionInfo; b: SessionInfo }) {
  const [formatA, formatB] = result.formats.map((f) => f.toUpperCase());
  if (result.differences[0]?.kind === 'format')
    return (
      <p className="compare-outcome invalid" role="alert" data-testid="compare-formats">
        A is {formatA} and B is {formatB}: only files of one format are compared by content.
      </p>
    );
  if (result.equal)
    return (
      <p className="compare-outcome valid" role="status" data-testid="compare-equal">
        ✓ {a.mainFile ?? a.name} and {b.mainFile ?? b.name} are equal in content ({formatA},{' '}
        {result.recordsCompared.toLocaleString('en-US')} records)
      </p>
    );
  const n = result.differences.length;
  return (
    <p className="compare-outcome" role="status" data-testid="compare-outcome">
      {n} difference{n === 1 ? '' : 's'}
      {result.truncated
        ? `, listed up to the first ${result.maxRecords} differing records`
        : ` (${result.recordsCompared.toLocaleString('en-US')} records compared)`}
      : choose one to see it in both files.
    </p>
  );
}

/**
 * Compare: a second file opened beside the open one and compared by content in the worker
 * (core's compareContent, what the CLI's `diff` prints). Each difference, chosen, selects
 * its node in both trees and its bytes in both hex views.
 */
export function CompareView({ client, session }: { client: ParserClient; session: SessionInfo }) {
  const [maxRecords, setMaxRecords] = useState(DEFAULT_MAX_RECORDS);
  const [failure, setFailure] = useState<string | null>(null);
  const comparison = useComparison(client, session, maxRecords);
  const { other, result } = comparison;
  const navA = useNavigation(client, session, setFailure);
  const navB = useNavigation(client, other, setFailure);
  const [chosen, setChosen] = useState<number | null>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new session starts over.
  useEffect(() => navA.reset(session), [session.sessionId]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a newly opened second file starts over.
  useEffect(() => {
    if (other) navB.reset(other);
  }, [other?.sessionId]);

  const choose = useCallback(
    (index: number) => {
      const d = result?.differences[index];
      if (!d || !other) return;
      setChosen(index);
      show(navA, session, d.a.location);
      show(navB, other, d.b.location);
    },
    [result, other, session, navA, navB],
  );

  // A new result shows its first difference in both files.
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new result chooses.
  useEffect(() => {
    setChosen(null);
    if (result && result.differences[0]?.kind !== 'format' && result.differences.length > 0) choose(0);
  }, [result]);

  const { running, opening } = comparison;
  return (
    <div className="compare" data-testid="compare-view">
      <div className="compare-bar">
        <CompareOpen onOpen={comparison.open} busy={!!opening} />
        <form
          className="compare-limit"
          onSubmit={(e) => {
            e.preventDefault();
            comparison.run(maxRecords);
          }}
        >
          <label>
            differing records listed{' '}
            <input
              type="number"
              min={1}
              max={1000}
              value={maxRecords}
              onChange={(e) => setMaxRecords(Math.max(1, Math.min(1000, Number(e.target.value) || 1)))}
            />
          </label>
          <button type="submit" disabled={!other || !!running}>
            Compare again
          </button>
        </form>
      </div>
      <div className="compare-status" aria-live="polite">
        {!other && !opening && (
          <p className="muted">
            Choose a second file to compare {session.mainFile ?? session.name} with, by content: header,
            structure, counts, then records in order.
          </p>
        )}
        {opening && <p className="busy">opening {opening}…</p>}
        {running && (
          <p className="validating" data-testid="compare-running">
            comparing… {running.done.toLocaleString('en-US')} records{' '}
            <button type="button" onClick={comparison.cancel}>
              cancel
            </button>
          </p>
        )}
        {comparison.cancelled && (
          <p className="muted" data-testid="compare-cancelled">
            comparison cancelled
          </p>
        )}
        {(comparison.error ?? failure) && (
          <p className="open-error" role="alert" data-testid="compare-error">
            {comparison.error ?? failure}
          </p>
        )}
        {result && other && <Outcome result={result} a={session} b={other} />}
      </div>
      {result && !result.equal && result.differences[0]?.kind !== 'format' && (
        <DifferenceList result={result} chosen={chosen} onChoose={choose} />
      )}
      {other && (
        <div className="compare-sides">
          <CompareSide client={client} session={session} nav={navA} side="A" />
          <CompareSide client={client} session={other} nav={navB} side="B" />
        </div>
      )}
    </div>
  );
}
