import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ParserClient } from '../client';
import { hexOffset, parseOffset } from '../format';
import { bytesPerRowFor, rowWidthCh, useCharWidth } from './hexLayout';
import { useViewportSize } from './useViewportSize';

const ROW_HEIGHT = 20;
const CHUNK = 4096;
const MAX_CHUNKS = 64;
/** Browsers cap element heights (~16M px in Chromium); beyond this the scrollbar is scaled. */
const MAX_SCROLL_HEIGHT = 4_000_000;

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
}

/**
 * A virtualized hex view: 16 bytes per row, only the rows on screen are rendered, and only
 * their 4 KiB chunks are read (through the worker, so over HTTP that is a range request).
 */
export function HexView(props: HexViewProps) {
  const { client, sessionId, file, size, selection, cursor, onCursor, onPick, scrollRequest } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  const { width, height } = useViewportSize(scrollRef);
  const probeRef = useRef<HTMLSpanElement>(null);
  const charWidth = useCharWidth(probeRef);
  const offsetWidth = Math.max(8, size.toString(16).length);
  // 16 bytes per row where they fit, 8 (or 4) on narrow screens, so the ASCII column is never clipped.
  const bytesPerRow = bytesPerRowFor(width, charWidth, offsetWidth);
  const [scrollTop, setScrollTop] = useState(0);
  const chunks = useRef(new Map<number, Uint8Array>());
  const inflight = useRef(new Set<number>());
  const [version, setVersion] = useState(0);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [goto, setGoto] = useState('');

  const totalRows = Math.max(1, Math.ceil(size / bytesPerRow));
  const visibleRows = Math.max(1, Math.floor(height / ROW_HEIGHT));
  const contentHeight = totalRows * ROW_HEIGHT;
  const scaled = contentHeight > MAX_SCROLL_HEIGHT;
  const spacerHeight = Math.min(contentHeight, MAX_SCROLL_HEIGHT);
  const maxTopRow = Math.max(0, totalRows - visibleRows);

  const topRow = scaled
    ? Math.round((scrollTop / Math.max(1, spacerHeight - height)) * maxTopRow)
    : Math.floor(scrollTop / ROW_HEIGHT);
  const firstRow = Math.min(topRow, maxTopRow);

  const scrollTopFor = useCallback(
    (row: number) => (scaled ? (row / Math.max(1, maxTopRow)) * (spacerHeight - height) : row * ROW_HEIGHT),
    [scaled, maxTopRow, spacerHeight, height],
  );

  // A new file means new bytes.
  useEffect(() => {
    void file;
    void sessionId;
    chunks.current = new Map();
    inflight.current = new Set();
    setLoadError(null);
    setVersion((v) => v + 1);
  }, [file, sessionId]);

  // Read the chunks under the visible rows.
  useEffect(() => {
    const from = Math.floor((firstRow * bytesPerRow) / CHUNK);
    const to = Math.floor(Math.min(size - 1, (firstRow + visibleRows + 1) * bytesPerRow) / CHUNK);
    for (let c = from; c <= to && size > 0; c++) {
      if (chunks.current.has(c) || inflight.current.has(c)) continue;
      inflight.current.add(c);
      const map = chunks.current;
      client
        .request({ type: 'bytes', sessionId, file, offset: c * CHUNK, length: CHUNK })
        .then((bytes) => {
          if (map !== chunks.current) return;
          map.set(c, bytes);
          if (map.size > MAX_CHUNKS) map.delete(map.keys().next().value as number);
          setVersion((v) => v + 1);
        })
        .catch((error: Error) => setLoadError(error.message))
        .finally(() => inflight.current.delete(c));
    }
  }, [firstRow, visibleRows, size, client, sessionId, file, bytesPerRow]);

  const ensureVisible = useCallback(
    (offset: number, center = false) => {
      const el = scrollRef.current;
      if (!el) return;
      const row = Math.floor(offset / bytesPerRow);
      if (!center && row >= firstRow && row < firstRow + visibleRows) return;
      const target = center
        ? Math.max(0, row - Math.floor(visibleRows / 3))
        : row < firstRow
          ? row
          : row - visibleRows + 1;
      el.scrollTop = scrollTopFor(Math.max(0, Math.min(maxTopRow, target)));
      setScrollTop(el.scrollTop);
    },
    [firstRow, visibleRows, maxTopRow, scrollTopFor, bytesPerRow],
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

  const byteAt = (offset: number): number | undefined =>
    chunks.current.get(Math.floor(offset / CHUNK))?.[offset % CHUNK];

  // biome-ignore lint/correctness/useExhaustiveDependencies: byteAt reads the chunk cache; `version` says when it changed.
  const rows = useMemo(() => {
    void version;
    const out: Array<{ row: number; cells: Array<{ offset: number; value: number | undefined }> }> = [];
    for (let r = firstRow; r < Math.min(totalRows, firstRow + visibleRows + 1); r++) {
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

  const inSelection = (o: number) => !!selection && o >= selection.start && o < selection.end;
  const cellClass = (o: number) => {
    let c = 'b';
    if (inSelection(o)) {
      c += ' sel';
      if (o === selection!.start) c += ' sel-start';
      if (o === selection!.end - 1) c += ' sel-end';
    }
    if (o === cursor) c += ' cur';
    return c;
  };
  const cellFromEvent = (event: React.MouseEvent): number | undefined => {
    const value = (event.target as HTMLElement).closest<HTMLElement>('[data-offset]')?.dataset.offset;
    return value === undefined ? undefined : Number(value);
  };
  const smoothShift = scaled ? 0 : scrollTop - firstRow * ROW_HEIGHT;

  return (
    <section
      className="hex"
      aria-label="Hex view"
      data-bytes-per-row={bytesPerRow}
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
      {loadError && (
        <div className="hex-error" role="alert">
          cannot read bytes: {loadError}
        </div>
      )}
      {/* A virtualized grid of spans (a <table> of millions of rows is what this avoids); focus stays on the
          grid and aria-activedescendant names the cursor cell, so cells need no tabindex of their own. */}
      {/* biome-ignore lint/a11y/useSemanticElements: see above. */}
      <div
        ref={scrollRef}
        className="hex-scroll"
        role="grid"
        aria-label={`Bytes of ${props.label}`}
        aria-rowcount={totalRows}
        aria-readonly="true"
        aria-activedescendant={`hex-${sessionId}-${cursor}`}
        tabIndex={0}
        onKeyDown={onKeyDown}
        onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
        onMouseDown={(e) => {
          const offset = cellFromEvent(e);
          if (offset === undefined) return;
          onCursor(offset);
          onPick(offset);
        }}
      >
        <div style={{ height: spacerHeight }}>
          <div className="hex-rows" style={{ transform: `translateY(${-smoothShift}px)` }}>
            {rows.map(({ row, cells }) => (
              // biome-ignore lint/a11y/useSemanticElements lint/a11y/useFocusableInteractive: rows of the virtualized grid above.
              <div className="hex-row" role="row" aria-rowindex={row + 1} key={row}>
                <span className="off" style={{ width: `${offsetWidth + 1}ch` }}>
                  {hexOffset(row * bytesPerRow, offsetWidth)}
                </span>
                <span className={`hexcols w${bytesPerRow}`}>
                  {cells.map(({ offset, value }) => (
                    // biome-ignore lint/a11y/useSemanticElements lint/a11y/useFocusableInteractive: cells of the grid; the grid holds focus.
                    <span
                      key={offset}
                      id={`hex-${sessionId}-${offset}`}
                      role="gridcell"
                      className={cellClass(offset)}
                      data-offset={offset}
                      aria-selected={inSelection(offset)}
                    >
                      {value === undefined ? '··' : value.toString(16).padStart(2, '0')}
                    </span>
                  ))}
                </span>
                <span className={`ascii w${bytesPerRow}`} aria-hidden="true">
                  {cells.map(({ offset, value }) => (
                    <span key={offset} className={cellClass(offset)} data-offset={offset}>
                      {value === undefined
                        ? ' '
                        : value >= 0x20 && value < 0x7f
                          ? String.fromCharCode(value)
                          : '.'}
                    </span>
                  ))}
                </span>
              </div>
            ))}
          </div>
        </div>
      </div>
    </section>
  );
}
