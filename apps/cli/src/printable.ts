/**
 * Text from files (column names, member names, messages quoting them) is shown escaped, so
 * no byte of a file reaches the terminal as a control: ESC could recolour, retitle or hide
 * what follows, CR could overwrite a line, a newline could forge one. C0 controls, DEL and
 * C1 controls become JSON-style escapes (`\n`, `\r`, `\u001b`, `\u009b`), as in JSON output.
 * The CLI's one boundary for it: `Output.line` and `Messages.line` apply it to every line.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

function escapeControl(c: string): string {
  return SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** `text` with every control character escaped. */
export function printable(text: string): string {
  return text.replace(CONTROL, escapeControl);
}

/** JSON text with DEL and C1 controls escaped too: core's, shared with JSON Lines output. */
export { printableJson } from '@binscope/core';
