import { compareContent, type DifferenceSide, type ProgressCallback } from '@binscope/core';
import type { ComparisonView, DifferenceSideView } from '../protocol';
import type { Session } from './session';

/** Characters of a value's JSON the list shows: a differing record can be large. */
const TEXT_LIMIT = 240;
/** The most differing records one comparison lists (the CLI's --max-records, bounded). */
export const MAX_COMPARED_RECORDS = 1000;

function reading(session: Session, side: 'A' | 'B') {
  const { plugin, reader } = session;
  if (plugin && reader) return { plugin, reader };
  const why = session.openError
    ? `${session.openError.code ?? session.openError.name}: ${session.openError.message}`
    : 'none of the formats reads it';
  throw new Error(`${side} (${session.name}) cannot be compared: ${why}`);
}

function sideView(session: Session, side: DifferenceSide): DifferenceSideView {
  // JSON writes -0 as 0; a difference of sign must show.
  const json = !side.present ? '' : Object.is(side.value, -0) ? '-0' : JSON.stringify(side.value);
  const text = json.length > TEXT_LIMIT ? `${json.slice(0, TEXT_LIMIT - 1)}…` : json;
  const loc = side.location;
  if (!loc) return { present: side.present, text, location: null };
  // Plugins name files relative to their target; the page speaks session paths.
  const { node: _node, ...rest } = loc;
  return { present: side.present, text, location: { ...rest, file: session.files.fromPlugin(loc.file) } };
}

/**
 * Two sessions compared by content through core's compareContent (what the CLI's `diff`
 * prints): lazily, record by record through each reader, stopping after `maxRecords`
 * differing records or when the page cancels.
 */
export async function compareSessions(
  a: Session,
  b: Session,
  maxRecords: number,
  signal: AbortSignal,
  onProgress: ProgressCallback,
): Promise<ComparisonView> {
  const [ra, rb] = [reading(a, 'A'), reading(b, 'B')];
  const max = Math.max(1, Math.min(MAX_COMPARED_RECORDS, Math.floor(maxRecords) || 1));
  const result = await compareContent(ra, rb, { maxRecords: max, signal, onProgress });
  return {
    equal: result.equal,
    formats: [ra.plugin.id, rb.plugin.id],
    differences: result.differences.map((d) => ({
      kind: d.kind,
      path: d.path,
      a: sideView(a, d.a),
      b: sideView(b, d.b),
    })),
    recordsCompared: result.recordsCompared,
    truncated: result.truncated,
    maxRecords: max,
  };
}
