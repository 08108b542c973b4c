import { useState } from 'react';
import { hexOffset, parseOffset } from '../../format';

/** The hex view's header: the file, the selection, the cursor, and "go to" an offset. */
export function HexToolbar({
  label,
  selection,
  selectionLabel,
  cursor,
  onGoto,
  extra,
}: {
  label: string;
  selection: { start: number; end: number } | null;
  selectionLabel?: string;
  cursor: number;
  onGoto(offset: number): void;
  /** More controls, at the end of the bar. */
  extra?: React.ReactNode;
}) {
  const [goto, setGoto] = useState('');
  return (
    <div className="hex-toolbar">
      <span className="hex-file" title={label}>
        {label}
      </span>
      <span className="hex-sel" data-testid="hex-selection">
        {selection
          ? `${selectionLabel ? `${selectionLabel}: ` : ''}0x${hexOffset(selection.start, 1)}–0x${hexOffset(Math.max(selection.start, selection.end - 1), 1)} (${selection.end - selection.start} B)`
          : 'no selection'}
      </span>
      <span className="hex-cursor">cursor 0x{hexOffset(cursor, 1)}</span>
      <form
        className="hex-goto"
        onSubmit={(e) => {
          e.preventDefault();
          const offset = parseOffset(goto);
          if (offset !== undefined) onGoto(offset);
        }}
      >
        <label>
          go to{' '}
          <input
            value={goto}
            onChange={(e) => setGoto(e.target.value)}
            placeholder="0x1f0"
            size={8}
            aria-label="Go to offset"
          />
        </label>
      </form>
      {extra}
    </div>
  );
}

/** The column heads: offset, each byte's column number, ascii. */
export function HexHead({ bytesPerRow, offsetWidth }: { bytesPerRow: number; offsetWidth: number }) {
  return (
    <div className="hex-head" aria-hidden="true">
      <span className="off" style={{ width: `${offsetWidth + 1}ch` }}>
        offset
      </span>
      <span className={`hexcols w${bytesPerRow}`}>
        {Array.from({ length: bytesPerRow }, (_, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the column number is the identity.
          <span key={i} className="b">
            {i.toString(16).padStart(2, '0')}
          </span>
        ))}
      </span>
      <span className={`ascii w${bytesPerRow}`}>ascii</span>
    </div>
  );
}
