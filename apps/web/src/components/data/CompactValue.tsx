import { toHex } from '@binscope/core/binary';
import { formatBytes } from '../../format';
import type { ViewValue } from '../../protocol';
import { ImageCanvas } from './ImageCanvas';

/** Characters a table cell shows before "…" (the whole value is in the record's card). */
const CELL_CHARS = 80;
/** Items of an array or list a table cell shows. */
const CELL_ITEMS = 6;

const cut = (text: string, whole = text.length) =>
  text.length > CELL_CHARS || whole > text.length ? `${text.slice(0, CELL_CHARS)}…` : text;

/** A value on one line, as text: what a cell shows and what lists and structs nest. */
export function valueText(value: ViewValue): string {
  switch (value.kind) {
    case 'null':
      return 'null';
    case 'number':
      return value.text;
    case 'bool':
      return String(value.value);
    case 'string':
      return cut(value.text, value.length);
    case 'bytes':
      return `${formatBytes(value.size)}${value.mediaType ? ` ${value.mediaType}` : ''}`;
    case 'image':
      return `image ${value.width}×${value.height}×${value.channels}`;
    case 'ndarray': {
      const more = value.count > CELL_ITEMS ? ', …' : '';
      return `${value.dtype} [${value.shape.join('×')}] ${value.values.slice(0, CELL_ITEMS).join(', ')}${more}`;
    }
    case 'json':
      return cut(value.text.replace(/\s*\n\s*/g, ' '), value.length);
    case 'list': {
      const shown = value.items.slice(0, CELL_ITEMS).map(valueText);
      return cut(`[${value.count}] ${shown.join(', ')}${value.count > shown.length ? ', …' : ''}`);
    }
    case 'struct':
      return cut(value.fields.map(([k, v]) => `${k} ${valueText(v)}`).join(', '));
  }
}

/**
 * A value in a table cell, chosen by its logical type: null set apart from an empty string,
 * numbers right-aligned, an image as a thumbnail, byte strings as size and first bytes,
 * anything long cut with "…" (the record's card shows it whole).
 */
export function CompactValue({ value, label }: { value: ViewValue; label: string }) {
  switch (value.kind) {
    case 'null':
      return <span className="null">null</span>;
    case 'number':
      return <span>{value.text}</span>;
    case 'image':
      return value.pixels ? (
        <ImageCanvas
          pixels={value.pixels}
          width={value.width}
          height={value.height}
          channels={value.channels}
          label={`${label}: ${value.width}×${value.height} image`}
          max={48}
        />
      ) : (
        <span>{valueText(value)}</span>
      );
    case 'bytes':
      return (
        <span>
          {valueText(value)}{' '}
          <span className="muted mono">
            {toHex(value.head.subarray(0, 8), ' ')}
            {value.size > 8 ? ' …' : ''}
          </span>
        </span>
      );
    default: {
      const text = valueText(value);
      const whole = value.kind === 'string' || value.kind === 'json' ? value.text : undefined;
      return (
        <span title={whole && whole.length > text.length ? whole.slice(0, 2000) : undefined}>{text}</span>
      );
    }
  }
}
