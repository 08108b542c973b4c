import { useCallback, useEffect, useMemo, useRef } from 'react';
import type { ParserClient } from '../client';
import { HexHead, HexToolbar } from './hex/HexToolbar';
import { useHexScroll } from './hex/useHexScroll';
import { type HexCell, HexRows } from './HexRows';
import { EntropyCells, EntropyToggle, useByteProfile } from './EntropyStrip';
import { HexScrubber } from './HexScrubber';
import { bytesPerRowFor, rowWidthCh, useCharWidth } from './hexLayout';
import { useHexBytes } from './useHexBytes';
import { useViewportSize } from './useViewportSize';

export interface HexViewProps {
  client: ParserClient;
  sessionId: number;
  /** The session path of the file whose bytes are shown. */
  file: string | undefined;
  label: string;
  size: number;
  /** The selected node's byte range, [start, end). */
  selection: { start: number; end: number } | null;
  selectionLabel?: string;
  cursor: number;
  onCursor(offset: number): void;
  /** A byte was clicked or chosen with Enter: select the node that owns it. */
  onPick(offset: number): void;
  /** Bring this offset into view (token changes each time it is asked). */
  scrollRequest: { offset: number; token: number };
  /** A range was drag-selected, [start, end). */
  onRange?(range: { start: number; end: number }): void;
  /** The selected structure's fields, coloured in turn so their bounds show. */
  fields?: Array<{ start: number; end: number }>;
  /** Search and selection tools, shown under the toolbar. */
  tools?: React.ReactNode;
}

/**
 * A virtualized hex view: only the rows on screen are rendered and only their 4 KiB chunks
 * are read (through the worker, so over HTTP that is a range request). It scrolls by rows,
 * not by pixels: the wheel moves a few rows per notch at any file size, and the scrubber
 * beside it places the view anywhere in the file.
 */
export function HexView(props: HexViewProps) {
  const { client, sessionId, file, size, selection, cursor, onCursor, onPick, scrollRequest, fields } = props;
  const dragAnchor = useRef<number | null>(null);
  const scrollRef = useRef<HTMLDivElement>(null);
  const { width, height } = useViewportSize(scrollRef);
  const probeRef = useRef<HTMLSpanElement>(null);
  const charWidth = useCharWidth(probeRef);
  const offsetWidth = Math.max(8, size.toString(16).length);
  // 16 bytes per row where they fit, 8 (or 4) on narrow screens, so the ASCII column is never clipped.
  const bytesPerRow = bytesPerRowFor(width, charWidth, offsetWidth);
  const scroll = useHexScroll(scrollRef, { size, bytesPerRow, height, resetKey: `${sessionId}:${file}` });
  const { firstRow, visibleRows, totalRows, ensureVisible } = scroll;
  const { byteAt, version, error } = useHexBytes(
    client,
    sessionId,
    file,
    size,
    firstRow * bytesPerRow,
    (firstRow + visibleRows + 1) * bytesPerRow,
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new request scrolls.
  useEffect(() => {
    if (height > 0) ensureVisible(scrollRequest.offset, true);
  }, [scrollRequest.token, height > 0]);

  const move = (offset: number) => {
    const clamped = Math.max(0, Math.min(Math.max(0, size - 1), offset));
    onCursor(clamped);
    ensureVisible(clamped);
    return clamped;
  };

  const { onKeyDown, shiftAnchor } = useHexKeys({
    cursor,
    bytesPerRow,
    page: visibleRows * bytesPerRow,
    size,
    move,
    onPick,
    onRange: props.onRange,
  });

  // biome-ignore lint/correctness/useExhaustiveDependencies: byteAt reads the chunk cache; `version` says when it changed.
  const rows = useMemo(
    () => visibleCells(firstRow, Math.min(totalRows, firstRow + visibleRows), bytesPerRow, size, byteAt),
    [firstRow, visibleRows, totalRows, size, version, bytesPerRow],
  );

  const isSelected = useCallback(
    (o: number) => !!selection && o >= selection.start && o < selection.end,
    [selection],
  );
  const cellClass = useCallback(
    (o: number) => classOf(o, selection, cursor, fields),
    [selection, cursor, fields],
  );
  const gridId = `hex-${sessionId}`;
  const entropy = useByteProfile(client, sessionId, file, size);

  return (
    <section
      className="hex"
      aria-label="Hex view"
      data-bytes-per-row={bytesPerRow}
      data-first-row={firstRow}
      style={{ '--hex-row-ch': rowWidthCh(16, offsetWidth) } as React.CSSProperties}
    >
      <span ref={probeRef} className="ch-probe" aria-hidden="true">
        0000000000
      </span>
      <HexToolbar
        label={props.label}
        selection={selection}
        selectionLabel={props.selectionLabel}
        cursor={cursor}
        onGoto={(offset) => {
          move(offset);
          ensureVisible(offset, true);
          onPick(Math.min(offset, Math.max(0, size - 1)));
        }}
        extra={<EntropyToggle state={entropy} />}
      />
      {props.tools && <div className="hex-tools">{props.tools}</div>}
      <HexHead bytesPerRow={bytesPerRow} offsetWidth={offsetWidth} />
      {error && (
        <div className="hex-error" role="alert">
          cannot read bytes: {error}
        </div>
      )}
      <div className="hex-body">
        {/* A virtualized grid of spans (a <table> of millions of rows is what this avoids); focus stays on the
            grid and aria-activedescendant names the cursor cell, so cells need no tabindex of their own. */}
        {/* biome-ignore lint/a11y/useSemanticElements: see above. */}
        <div
          ref={scrollRef}
          id={gridId}
          className="hex-scroll"
          role="grid"
          aria-label={`Bytes of ${props.label}`}
          aria-rowcount={totalRows}
          aria-readonly="true"
          aria-activedescendant={activeCell(gridId, cursor, size, bytesPerRow, firstRow, visibleRows)}
          tabIndex={0}
          onKeyDown={onKeyDown}
          onMouseDown={(e) => {
            const offset = cellFromEvent(e);
            if (offset === undefined || e.button !== 0) return;
            dragAnchor.current = offset;
            shiftAnchor.current = null;
            onCursor(offset);
            onPick(offset);
          }}
          onMouseMove={(e) => {
            const anchor = dragAnchor.current;
            if (anchor === null || !(e.buttons & 1)) return;
            const offset = cellFromEvent(e);
            if (offset === undefined || offset === anchor) return;
            onCursor(offset);
            props.onRange?.({ start: Math.min(anchor, offset), end: Math.max(anchor, offset) + 1 });
          }}
          onMouseUp={() => {
            dragAnchor.current = null;
          }}
        >
          <HexRows
            rows={rows}
            gridId={gridId}
            bytesPerRow={bytesPerRow}
            offsetWidth={offsetWidth}
            cellClass={cellClass}
            isSelected={isSelected}
          />
        </div>
        <HexScrubber
          controls={gridId}
          topRow={firstRow}
          maxTopRow={scroll.maxTopRow}
          visibleRows={visibleRows}
          totalRows={totalRows}
          bytesPerRow={bytesPerRow}
          onRow={scroll.setFirstRow}
        >
          {entropy.on && <EntropyCells profile={entropy.profile} />}
        </HexScrubber>
      </div>
    </section>
  );
}

/** The byte offset of the hex cell an event is on. */
function cellFromEvent(event: React.MouseEvent): number | undefined {
  const value = (event.target as HTMLElement).closest<HTMLElement>('[data-offset]')?.dataset.offset;
  return value === undefined ? undefined : Number(value);
}

/**
 * The grid's keys: a key moves the cursor, Enter picks, Shift with a move extends the selection
 * from where it started (`shiftAnchor`; a plain move or a click forgets it).
 */
function useHexKeys(keys: {
  cursor: number;
  bytesPerRow: number;
  page: number;
  size: number;
  move: (offset: number) => number;
  onPick: (offset: number) => void;
  onRange?: (range: { start: number; end: number }) => void;
}) {
  const shiftAnchor = useRef<number | null>(null);
  const onKeyDown = (event: React.KeyboardEvent) => {
    const { cursor, move, onRange } = keys;
    const target = keyTarget(event, cursor, keys.bytesPerRow, keys.page, keys.size);
    if (target === undefined) return;
    event.preventDefault();
    if (target === 'pick') {
      shiftAnchor.current = null;
      keys.onPick(cursor);
      return;
    }
    if (!event.shiftKey || !onRange) {
      shiftAnchor.current = null;
      move(target);
      return;
    }
    const anchor = shiftAnchor.current ?? cursor;
    shiftAnchor.current = anchor;
    const to = move(target);
    onRange({ start: Math.min(anchor, to), end: Math.max(anchor, to) + 1 });
  };
  return { onKeyDown, shiftAnchor };
}

/** Where a key moves the cursor (cursor keys a byte or a row, pages, Home/End), or 'pick' for Enter. */
function keyTarget(
  event: React.KeyboardEvent,
  cursor: number,
  bytesPerRow: number,
  page: number,
  size: number,
): number | 'pick' | undefined {
  // Alt+Left / Alt+Right step through the selection history (useSelectionHistory), not the cursor.
  if (event.altKey) return undefined;
  const rowStart = cursor - (cursor % bytesPerRow);
  const whole = event.ctrlKey || event.metaKey;
  switch (event.key) {
    case 'ArrowRight':
      return cursor + 1;
    case 'ArrowLeft':
      return cursor - 1;
    case 'ArrowDown':
      return cursor + bytesPerRow;
    case 'ArrowUp':
      return cursor - bytesPerRow;
    case 'PageDown':
      return cursor + page;
    case 'PageUp':
      return cursor - page;
    case 'Home':
      return whole ? 0 : rowStart;
    case 'End':
      return whole ? size - 1 : rowStart + bytesPerRow - 1;
    case 'Enter':
    case ' ':
      return 'pick';
    default:
      return undefined;
  }
}

/** The cells of rows [from, to): each byte's offset and value (undefined until read). */
function visibleCells(
  from: number,
  to: number,
  bytesPerRow: number,
  size: number,
  byteAt: (offset: number) => number | undefined,
): Array<{ row: number; cells: HexCell[] }> {
  const out: Array<{ row: number; cells: HexCell[] }> = [];
  for (let r = from; r < to; r++) {
    const cells: HexCell[] = [];
    for (let i = 0; i < bytesPerRow; i++) {
      const offset = r * bytesPerRow + i;
      if (offset >= size) break;
      cells.push({ offset, value: byteAt(offset) });
    }
    out.push({ row: r, cells });
  }
  return out;
}

/** A byte's class names: selection (and its ends), cursor, and the tint of the field it is in. */
function classOf(
  o: number,
  selection: { start: number; end: number } | null,
  cursor: number,
  fields: Array<{ start: number; end: number }> | undefined,
): string {
  let c = 'b';
  if (selection && o >= selection.start && o < selection.end) {
    c += ' sel';
    if (o === selection.start) c += ' sel-start';
    if (o === selection.end - 1) c += ' sel-end';
  }
  if (o === cursor) c += ' cur';
  const field = fields ? fieldIndex(fields, o) : -1;
  if (field >= 0) c += ` fld f${field % 4}`;
  return c;
}

/** The index of the field holding `offset` (fields are in offset order), or -1. */
function fieldIndex(fields: Array<{ start: number; end: number }>, offset: number): number {
  let lo = 0;
  let hi = fields.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (offset < fields[mid].start) hi = mid - 1;
    else if (offset >= fields[mid].end) lo = mid + 1;
    else return mid;
  }
  return -1;
}

/** The cursor's cell id, when it is rendered: the cursor scrolled out of view names none. */
function activeCell(
  gridId: string,
  cursor: number,
  size: number,
  perRow: number,
  first: number,
  rows: number,
) {
  const row = Math.floor(cursor / perRow);
  return cursor < size && row >= first && row < first + rows ? `${gridId}-${cursor}` : undefined;
}
