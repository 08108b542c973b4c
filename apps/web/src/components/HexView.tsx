import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ParserClient } from '../client';
import { hexOffset, parseOffset } from '../format';
import { HexRows } from './HexRows';
import { HexScrubber } from './HexScrubber';
import { bytesPerRowFor, rowWidthCh, useCharWidth } from './hexLayout';
import { useHexBytes } from './useHexBytes';
import { useViewportSize } from './useViewportSize';

const ROW_HEIGHT = 20;

export interface HexViewProps {
  client: ParserClient;
  sessionId: number;
  /** The file whose bytes are shown (undefined: the session's main file). */
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
  const [goto, setGoto] = useState('');

  const totalRows = Math.max(1, Math.ceil(size / bytesPerRow));
  const visibleRows = Math.max(1, Math.floor(height / ROW_HEIGHT));
  const maxTopRow = Math.max(0, totalRows - visibleRows);
  // The first shown row is kept as a byte offset, so a change of bytes per row keeps the place.
  const [topOffset, setTopOffset] = useState(0);
  const firstRow = Math.min(Math.floor(topOffset / bytesPerRow), maxTopRow);
  const setFirstRow = useCallback(
    (row: number) => setTopOffset(Math.max(0, Math.min(maxTopRow, Math.round(row))) * bytesPerRow),
    [maxTopRow, bytesPerRow],
  );

  const { byteAt, version, error } = useHexBytes(
    client,
    sessionId,
    file,
    size,
    firstRow * bytesPerRow,
    (firstRow + visibleRows + 1) * bytesPerRow,
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new file starts at its top.
  useEffect(() => setTopOffset(0), [file, sessionId]);

  // The wheel scrolls rows: a line-mode notch is a row, a pixel-mode notch (~100 px) a few.
  const wheelRest = useRef(0);
  useEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const onWheel = (event: WheelEvent) => {
      if (event.ctrlKey) return; // pinch zoom
      event.preventDefault();
      const rows =
        event.deltaMode === 1
          ? event.deltaY
          : event.deltaMode === 2
            ? event.deltaY * visibleRows
            : (wheelRest.current + event.deltaY) / ROW_HEIGHT;
      const whole = Math.trunc(rows);
      wheelRest.current = event.deltaMode === 0 ? (rows - whole) * ROW_HEIGHT : 0;
      if (whole !== 0) setTopOffset((top) => clampTop(Math.floor(top / bytesPerRow) + whole));
    };
    const clampTop = (row: number) => Math.max(0, Math.min(maxTopRow, row)) * bytesPerRow;
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, [visibleRows, maxTopRow, bytesPerRow]);

  const ensureVisible = useCallback(
    (offset: number, center = false) => {
      const row = Math.floor(offset / bytesPerRow);
      if (!center && row >= firstRow && row < firstRow + visibleRows) return;
      const target = center
        ? row - Math.floor(visibleRows / 3)
        : row < firstRow
          ? row
          : row - visibleRows + 1;
      setFirstRow(target);
    },
    [firstRow, visibleRows, bytesPerRow, setFirstRow],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new request scrolls.
  useEffect(() => {
    if (height > 0) ensureVisible(scrollRequest.offset, true);
  }, [scrollRequest.token, height > 0]);

  const move = (offset: number) => {
    const clamped = Math.max(0, Math.min(Math.max(0, size - 1), offset));
    onCursor(clamped);
    ensureVisible(clamped);
  };

  const onKeyDown = (event: React.KeyboardEvent) => {
    const page = visibleRows * bytesPerRow;
    const rowStart = cursor - (cursor % bytesPerRow);
    const steps: Record<string, number | undefined> = {
      ArrowRight: cursor + 1,
      ArrowLeft: cursor - 1,
      ArrowDown: cursor + bytesPerRow,
      ArrowUp: cursor - bytesPerRow,
      PageDown: cursor + page,
      PageUp: cursor - page,
      Home: event.ctrlKey || event.metaKey ? 0 : rowStart,
      End: event.ctrlKey || event.metaKey ? size - 1 : rowStart + bytesPerRow - 1,
    };
    if (event.key in steps) {
      event.preventDefault();
      move(steps[event.key]!);
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      onPick(cursor);
    }
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: byteAt reads the chunk cache; `version` says when it changed.
  const rows = useMemo(() => {
    void version;
    const out: Array<{ row: number; cells: Array<{ offset: number; value: number | undefined }> }> = [];
    for (let r = firstRow; r < Math.min(totalRows, firstRow + visibleRows); r++) {
      const cells: Array<{ offset: number; value: number | undefined }> = [];
      for (let i = 0; i < bytesPerRow; i++) {
        const offset = r * bytesPerRow + i;
        if (offset >= size) break;
        cells.push({ offset, value: byteAt(offset) });
      }
      out.push({ row: r, cells });
    }
    return out;
  }, [firstRow, visibleRows, totalRows, size, version, bytesPerRow]);

  const isSelected = useCallback(
    (o: number) => !!selection && o >= selection.start && o < selection.end,
    [selection],
  );
  const cellClass = useCallback(
    (o: number) => {
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
    },
    [selection, cursor, fields],
  );
  const cellFromEvent = (event: React.MouseEvent): number | undefined => {
    const value = (event.target as HTMLElement).closest<HTMLElement>('[data-offset]')?.dataset.offset;
    return value === undefined ? undefined : Number(value);
  };
  const gridId = `hex-${sessionId}`;

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
      <div className="hex-toolbar">
        <span className="hex-file" title={props.label}>
          {props.label}
        </span>
        <span className="hex-sel" data-testid="hex-selection">
          {selection
            ? `${props.selectionLabel ? `${props.selectionLabel}: ` : ''}0x${hexOffset(selection.start, 1)}–0x${hexOffset(Math.max(selection.start, selection.end - 1), 1)} (${selection.end - selection.start} B)`
            : 'no selection'}
        </span>
        <span className="hex-cursor">cursor 0x{hexOffset(cursor, 1)}</span>
        <form
          className="hex-goto"
          onSubmit={(e) => {
            e.preventDefault();
            const offset = parseOffset(goto);
            if (offset !== undefined) {
              move(offset);
              ensureVisible(offset, true);
              onPick(Math.min(offset, Math.max(0, size - 1)));
            }
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
      </div>
      {props.tools && <div className="hex-tools">{props.tools}</div>}
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
          aria-activedescendant={`${gridId}-${cursor}`}
          tabIndex={0}
          onKeyDown={onKeyDown}
          onMouseDown={(e) => {
            const offset = cellFromEvent(e);
            if (offset === undefined || e.button !== 0) return;
            dragAnchor.current = offset;
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
          maxTopRow={maxTopRow}
          visibleRows={visibleRows}
          totalRows={totalRows}
          bytesPerRow={bytesPerRow}
          onRow={setFirstRow}
        />
      </div>
    </section>
  );
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
