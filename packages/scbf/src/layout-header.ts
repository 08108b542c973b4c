import { type ErrorCode, type FormatError, Phase, type ProblemList, parseBoundedJson } from '@binscope/core';
import { decodeUtf8 } from '@binscope/core/binary';
import { FORMAT, PREFIX_LENGTH, type ScbfHeader, type ScbfSchemaColumn } from './layout.js';
import { SCBF_MAGIC } from './magic.js';

/**
 * S1's magic and version. Outside inspect mode a wrong magic ends the parse; inspect goes on
 * so the header fields that still decode are shown beside the marked magic.
 */
export function checkMagic(head: Uint8Array, problems: ProblemList): void {
  const fatal = (phase: number, code: ErrorCode, message: string, offset: number): never => {
    throw problems.error(code, message, { phase, offset });
  };
  const magic = Uint8Array.from(SCBF_MAGIC, (c) => c.charCodeAt(0));
  const shown = Array.from(head.subarray(0, 8), (b) =>
    b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`,
  ).join('');
  const n = Math.min(head.byteLength, 8);
  let matches = true;
  for (let i = 0; i < n; i++) if (head[i] !== magic[i]) matches = false;
  if (!matches) {
    // "SCBFv<digits>" with another number is a version we do not read; anything else is not SCBF.
    const text = String.fromCharCode(...head.subarray(0, n));
    const version = /^SCBFv([0-9]+)\0*$/.exec(text);
    const wrong =
      version && version[1] !== '1' && n === 8
        ? problems.error(
            'UnsupportedVersion',
            `SCBF version ${version[1]} is not supported (this reader reads SCBFv1)`,
            { phase: Phase.version, offset: 5 },
          )
        : problems.error(
            'BadMagic',
            `not an SCBF file: the first bytes are "${shown}", expected "SCBFv1\\0\\0"`,
            { phase: Phase.magic, offset: 0 },
          );
    if (problems.mode !== 'inspect' || head.byteLength < PREFIX_LENGTH) throw wrong;
    return;
  }
  if (head.byteLength < PREFIX_LENGTH) {
    fatal(
      Phase.bounds,
      'Truncated',
      `the file ends after ${head.byteLength} bytes, inside the ${PREFIX_LENGTH}-byte header start`,
      head.byteLength >= 8 ? 8 : 0,
    );
  }
}

/** S2's schema_json: UTF-8, JSON, an object with a "columns" array of {name, type}. */
export function parseSchema(bytes: Uint8Array, problems: ProblemList): ScbfHeader['schema'] {
  const add = (phase: number, code: ErrorCode, message: string, offset: number) =>
    problems.error(code, message, { phase, offset });
  let text: string;
  try {
    text = decodeUtf8(bytes, {
      offset: PREFIX_LENGTH,
      file: problems.file,
      format: FORMAT,
      what: 'schema_json',
    });
  } catch (error) {
    add(Phase.header, 'InvalidValue', (error as FormatError).detail, PREFIX_LENGTH);
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = parseBoundedJson(text);
  } catch (error) {
    add(
      Phase.header,
      'InvalidValue',
      `schema_json is not valid JSON: ${(error as Error).message}`,
      PREFIX_LENGTH,
    );
    return undefined;
  }
  const columns = (parsed as { columns?: unknown })?.columns;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !Array.isArray(columns)) {
    add(Phase.header, 'InvalidValue', 'schema_json must be an object with a "columns" array', PREFIX_LENGTH);
    return undefined;
  }
  for (const [i, column] of columns.entries()) {
    const c = column as { name?: unknown; type?: unknown };
    if (typeof c !== 'object' || c === null || typeof c.name !== 'string' || typeof c.type !== 'string') {
      add(
        Phase.header,
        'InvalidValue',
        `schema_json column ${i} must be an object with string "name" and "type"`,
        PREFIX_LENGTH,
      );
      return undefined;
    }
  }
  return { columns: columns as ScbfSchemaColumn[] };
}
