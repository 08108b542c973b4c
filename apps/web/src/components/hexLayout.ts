import { type RefObject, useLayoutEffect, useState } from 'react';

/** Row padding and the two column gaps of a hex row, in px (see .hex-row in styles.css). */
const ROW_CHROME_PX = 10 + 10 + 12 + 12;
/** The extra gap after the 8th byte of a 16-byte row, in ch. */
const MID_GAP_CH = 0.6;
const CHOICES = [16, 8, 4] as const;

/** Width in ch of the offset, hex and ASCII columns of a row of `n` bytes. */
export function rowWidthCh(n: number, offsetDigits: number): number {
  return offsetDigits + 1 + 3 * n + (n > 8 ? MID_GAP_CH : 0) + n;
}

/**
 * The most bytes per row (16, 8 or 4) whose row fits `width` px. An unmeasured view
 * (width 0) gets 16; the ResizeObserver corrects it before the first paint.
 */
export function bytesPerRowFor(width: number, charWidth: number, offsetDigits: number): number {
  if (width <= 0 || charWidth <= 0) return 16;
  for (const n of CHOICES) {
    if (ROW_CHROME_PX + rowWidthCh(n, offsetDigits) * charWidth <= width) return n;
  }
  return CHOICES[CHOICES.length - 1];
}

/** The width of one monospace character, measured from a probe of ten zeros. */
export function useCharWidth(probe: RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const el = probe.current;
    if (!el) return;
    const update = () => el.isConnected && setWidth(el.getBoundingClientRect().width / 10);
    update();
    // Zoom and font loading change it.
    const observer = new ResizeObserver(update);
    observer.observe(el);
    return () => observer.disconnect();
  }, [probe]);
  return width;
}
