import { useEffect, useMemo, useState } from 'react';
import { formatBytes } from '../../format';
import type { ViewValue } from '../../protocol';
import { valueText } from './CompactValue';
import { HeatmapCanvas } from './HeatmapCanvas';
import { ImageCanvas } from './ImageCanvas';

/** Whether the page has only part of a value (the detail request brings more of it). */
export function isCut(value: ViewValue): boolean {
  switch (value.kind) {
    case 'string':
    case 'json':
      return value.length > value.text.length;
    case 'bytes':
      return !value.complete;
    case 'ndarray':
      return value.count > value.values.length;
    case 'list':
      return value.count > value.items.length;
    case 'image':
      return !value.pixels;
    default:
      return false;
  }
}

/** Text longer than this starts collapsed, with "more" to open it. */
const COLLAPSED_CHARS = 400;

/** Long text, collapsed to its start until expanded. */
function LongText({ text, pre }: { text: string; pre?: boolean }) {
  const [open, setOpen] = useState(false);
  const long = text.length > COLLAPSED_CHARS;
  const shown = long && !open ? `${text.slice(0, COLLAPSED_CHARS)}…` : text;
  return (
    <>
      {pre ? <pre className="payload">{shown}</pre> : <span className="text-value">{shown}</span>}
      {long && (
        <button type="button" className="link-button" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'less' : 'more'}
        </button>
      )}
    </>
  );
}

/** Bytes as a dump of `width` a row: offset, hex, and the bytes as ASCII. */
function dump(bytes: Uint8Array, width = 8): string {
  const lines: string[] = [];
  for (let at = 0; at < bytes.byteLength; at += width) {
    const row = bytes.subarray(at, at + width);
    const hex = Array.from(row, (b) => b.toString(16).padStart(2, '0')).join(' ');
    const ascii = Array.from(row, (b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${at.toString(16).padStart(6, '0')}  ${hex.padEnd(width * 3 - 1)}  ${ascii}`);
  }
  return lines.join('\n');
}

const SCALARS = new Set<ViewValue['kind']>(['null', 'number', 'bool', 'string']);

/** Items of one struct shape with scalar fields: a small table (one row an item) reads best. */
function structRows(
  items: ViewValue[],
): { columns: string[]; rows: Array<Map<string, ViewValue>> } | undefined {
  if (items.length === 0 || !items.every((i) => i.kind === 'struct')) return undefined;
  const rows = items.map((i) => new Map((i as Extract<ViewValue, { kind: 'struct' }>).fields));
  if (!rows.every((r) => [...r.values()].every((v) => SCALARS.has(v.kind)))) return undefined;
  return { columns: [...new Set(rows.flatMap((r) => [...r.keys()]))], rows };
}

/** A list: scalars on a line, structs of scalars as a small table, anything else one item a line. */
function ListValue({ value, label }: { value: Extract<ViewValue, { kind: 'list' }>; label: string }) {
  const rest = value.count - value.items.length;
  if (value.items.every((i) => SCALARS.has(i.kind)))
    return (
      <span className="mono">
        [{value.count}] {value.items.map(valueText).join(', ')}
        {rest > 0 ? ', …' : ''}
      </span>
    );
  const table = structRows(value.items);
  if (table)
    return (
      <table className="nested">
        <thead>
          <tr>
            {table.columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: items of one list, in order.
            <tr key={i}>
              {table.columns.map((c) => {
                const cell = row.get(c);
                return <td key={c}>{cell ? valueText(cell) : ''}</td>;
              })}
            </tr>
          ))}
          {rest > 0 && (
            <tr>
              <td colSpan={table.columns.length} className="muted">
                … {rest} more
              </td>
            </tr>
          )}
        </tbody>
      </table>
    );
  return (
    <ol className="list-value" start={0}>
      {value.items.map((item, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: items of one list, in order.
        <li key={i}>
          <RichValue value={item} label={`${label}[${i}]`} />
        </li>
      ))}
      {rest > 0 && <li className="muted">… {rest} more</li>}
    </ol>
  );
}

/** A byte string: an image when its media type is one the browser decodes, its text, or a hex dump of its head. */
function BytesValue({ value, label }: { value: Extract<ViewValue, { kind: 'bytes' }>; label: string }) {
  const image = value.complete && value.mediaType?.startsWith('image/') ? value.mediaType : undefined;
  const url = useMemo(
    () => (image ? URL.createObjectURL(new Blob([value.head as BlobPart], { type: image })) : null),
    [value.head, image],
  );
  useEffect(() => () => void (url && URL.revokeObjectURL(url)), [url]);
  const [broken, setBroken] = useState(false);
  return (
    <div className="bytes-value" data-testid="bytes-value">
      <span className="muted">
        {formatBytes(value.size)}
        {value.mediaType ? `, ${value.mediaType}` : ''}
      </span>
      {url && !broken && (
        <img src={url} alt={label} onError={() => setBroken(true)} data-testid="bytes-image" />
      )}
      {url && broken && <p className="muted">The bytes do not decode as {image}.</p>}
      {(!url || broken) &&
        (value.text !== undefined ? (
          <LongText text={value.text} pre />
        ) : (
          <pre className="payload hex-dump">
            {dump(value.head)}
            {value.complete ? '' : '\n…'}
          </pre>
        ))}
    </div>
  );
}

/**
 * A value whole (as far as the page has it), chosen by its logical type: an image drawn, a
 * byte string as an image, text or hex, an array's shape and values, JSON pretty-printed,
 * long text collapsed with "more", lists and structs nested.
 */
export function RichValue({ value, label }: { value: ViewValue; label: string }) {
  switch (value.kind) {
    case 'null':
      return <span className="null">null</span>;
    case 'string':
      return <LongText text={value.text} />;
    case 'json':
      return <LongText text={value.text} pre />;
    case 'bytes':
      return <BytesValue value={value} label={label} />;
    case 'image':
      return (
        <div className="image-wrap">
          <span className="muted">
            {value.width}×{value.height}×{value.channels}
            {value.mode !== undefined ? `, mode ${value.mode}` : ''}
          </span>
          {value.pixels && (
            <ImageCanvas
              pixels={value.pixels}
              width={value.width}
              height={value.height}
              channels={value.channels}
              label={`${label}: ${value.width}×${value.height} image`}
            />
          )}
        </div>
      );
    case 'ndarray':
      return (
        <span className="ndarray-value">
          <strong>
            {value.dtype} [{value.shape.join(' × ')}]
          </strong>{' '}
          <span className="muted mono">
            {value.values.join(', ')}
            {value.count > value.values.length ? `, … (${value.count.toLocaleString('en-US')} values)` : ''}
          </span>
          {value.grid && <HeatmapCanvas grid={value.grid} label={label} />}
        </span>
      );
    case 'list':
      return <ListValue value={value} label={label} />;
    case 'struct':
      return (
        <dl className="kv struct-value">
          {value.fields.map(([name, field]) => (
            <div key={name} className="kv-row">
              <dt>{name}</dt>
              <dd>
                <RichValue value={field} label={`${label}.${name}`} />
              </dd>
            </div>
          ))}
        </dl>
      );
    default:
      return <span>{valueText(value)}</span>;
  }
}
