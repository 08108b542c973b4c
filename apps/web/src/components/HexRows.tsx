import { memo } from 'react';
import { hexOffset } from '../format';

export interface HexCell {
  offset: number;
  value: number | undefined;
}

export interface HexRowsProps {
  rows: Array<{ row: number; cells: HexCell[] }>;
  gridId: string;
  bytesPerRow: number;
  offsetWidth: number;
  /** Class names of a byte (selection, cursor, field colour). */
  cellClass(offset: number): string;
  isSelected(offset: number): boolean;
}

const ascii = (value: number | undefined) =>
  value === undefined ? ' ' : value >= 0x20 && value < 0x7f ? String.fromCharCode(value) : '.';

/** The rows on screen: offset, hex bytes and their ASCII, each byte tagged with its offset. */
export const HexRows = memo(function HexRows(props: HexRowsProps) {
  const { rows, gridId, bytesPerRow, offsetWidth, cellClass, isSelected } = props;
  return (
    <div className="hex-rows">
      {rows.map(({ row, cells }) => (
        // biome-ignore lint/a11y/useSemanticElements lint/a11y/useFocusableInteractive: rows of the virtualized grid.
        <div className="hex-row" role="row" aria-rowindex={row + 1} key={row}>
          <span className="off" style={{ width: `${offsetWidth + 1}ch` }}>
            {hexOffset(row * bytesPerRow, offsetWidth)}
          </span>
          <span className={`hexcols w${bytesPerRow}`}>
            {cells.map(({ offset, value }) => (
              // biome-ignore lint/a11y/useSemanticElements lint/a11y/useFocusableInteractive: cells of the grid; the grid holds focus.
              <span
                key={offset}
                id={`${gridId}-${offset}`}
                role="gridcell"
                className={cellClass(offset)}
                data-offset={offset}
                aria-selected={isSelected(offset)}
              >
                {value === undefined ? '··' : value.toString(16).padStart(2, '0')}
              </span>
            ))}
          </span>
          <span className={`ascii w${bytesPerRow}`} aria-hidden="true">
            {cells.map(({ offset, value }) => (
              <span key={offset} className={cellClass(offset)} data-offset={offset}>
                {ascii(value)}
              </span>
            ))}
          </span>
        </div>
      ))}
    </div>
  );
});
