import { type RefObject, useCallback, useEffect, useRef, useState } from 'react';

export const ROW_HEIGHT = 20;

/**
 * Which rows of the hex view are on screen. The first shown row is kept as a byte offset, so
 * a change of bytes per row keeps the place; the wheel scrolls rows (a line-mode notch is a
 * row, a pixel-mode notch of ~100 px a few), never pixels, at any file size.
 */
export function useHexScroll(
  scrollRef: RefObject<HTMLDivElement | null>,
  options: { size: number; bytesPerRow: number; height: number; resetKey: unknown },
) {
  const { size, bytesPerRow, height, resetKey } = options;
  const totalRows = Math.max(1, Math.ceil(size / bytesPerRow));
  const visibleRows = Math.max(1, Math.floor(height / ROW_HEIGHT));
  const maxTopRow = Math.max(0, totalRows - visibleRows);
  const [topOffset, setTopOffset] = useState(0);
  const firstRow = Math.min(Math.floor(topOffset / bytesPerRow), maxTopRow);
  const setFirstRow = useCallback(
    (row: number) => setTopOffset(Math.max(0, Math.min(maxTopRow, Math.round(row))) * bytesPerRow),
    [maxTopRow, bytesPerRow],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new file starts at its top.
  useEffect(() => setTopOffset(0), [resetKey]);

  const wheelRest = useRef(0);
  useEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const clampTop = (row: number) => Math.max(0, Math.min(maxTopRow, row)) * bytesPerRow;
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
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, [scrollRef, visibleRows, maxTopRow, bytesPerRow]);

  /** Scrolls `offset` into view (to a third from the top when `center`). */
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

  return { totalRows, visibleRows, maxTopRow, firstRow, setFirstRow, ensureVisible, size };
}
