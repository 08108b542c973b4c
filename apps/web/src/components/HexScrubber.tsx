import { useRef } from 'react';
import { hexOffset } from '../format';

export interface HexScrubberProps {
  /** The id of the grid it moves. */
  controls: string;
  topRow: number;
  maxTopRow: number;
  visibleRows: number;
  totalRows: number;
  bytesPerRow: number;
  onRow(row: number): void;
  /** Drawn in the track, under the thumb (a map of the file at the track's scale). */
  children?: React.ReactNode;
}

/**
 * A position bar for the whole file: the thumb's place is the first shown row's place in
 * the file, at any size (a native scrollbar is capped by the browser's maximum element
 * height, so in a big file one pixel of it jumped tens of KiB). Drag or click to jump;
 * from the keyboard, the cursor keys move a row, PageUp/PageDown a screen, Home/End the ends.
 */
export function HexScrubber(props: HexScrubberProps) {
  const { topRow, maxTopRow, visibleRows, totalRows, bytesPerRow, onRow } = props;
  const track = useRef<HTMLDivElement>(null);
  const fraction = maxTopRow > 0 ? topRow / maxTopRow : 0;
  const thumbShare = Math.min(1, visibleRows / Math.max(1, totalRows));
  // The thumb never shrinks below 24 px, so it stays grabbable in a 1 GB file.
  const thumbCss = `max(24px, ${(thumbShare * 100).toFixed(3)}%)`;

  const rowAt = (clientY: number) => {
    const el = track.current;
    if (!el) return topRow;
    const rect = el.getBoundingClientRect();
    const thumb = Math.max(24, thumbShare * rect.height);
    const usable = Math.max(1, rect.height - thumb);
    const f = Math.max(0, Math.min(1, (clientY - rect.top - thumb / 2) / usable));
    return Math.round(f * maxTopRow);
  };

  const onKeyDown = (event: React.KeyboardEvent) => {
    const steps: Record<string, number> = {
      ArrowDown: topRow + 1,
      ArrowUp: topRow - 1,
      PageDown: topRow + visibleRows,
      PageUp: topRow - visibleRows,
      Home: 0,
      End: maxTopRow,
    };
    if (event.key in steps) {
      event.preventDefault();
      onRow(steps[event.key]);
    }
  };

  const percent = Math.round(fraction * 100);
  return (
    <div
      ref={track}
      className="hex-scrubber"
      role="scrollbar"
      aria-controls={props.controls}
      aria-orientation="vertical"
      aria-valuemin={0}
      aria-valuemax={maxTopRow}
      aria-valuenow={topRow}
      aria-valuetext={`offset 0x${hexOffset(topRow * bytesPerRow, 1)}, ${percent}% of the file`}
      aria-label="Position in file"
      tabIndex={0}
      data-testid="hex-scrubber"
      title={`0x${hexOffset(topRow * bytesPerRow, 1)} · ${percent}%`}
      onKeyDown={onKeyDown}
      onPointerDown={(e) => {
        e.currentTarget.setPointerCapture(e.pointerId);
        onRow(rowAt(e.clientY));
      }}
      onPointerMove={(e) => {
        if (e.currentTarget.hasPointerCapture(e.pointerId)) onRow(rowAt(e.clientY));
      }}
    >
      {props.children}
      <div
        className="hex-scrubber-thumb"
        style={{ height: thumbCss, top: `calc((100% - ${thumbCss}) * ${fraction.toFixed(6)})` }}
      />
    </div>
  );
}
