import { useEffect, useRef } from 'react';
import type { NdGridView } from '../../protocol';

const short = (n: number) =>
  Number.isInteger(n) ? n.toLocaleString('en-US') : Number(n.toPrecision(6)).toString();

/**
 * A 2-D array as a grey heatmap, min black to max white (a non-finite cell stays transparent),
 * at most `max` CSS pixels on its longer side; the shape, min and max are written beside it
 * and in its label (its text alternative).
 */
export function HeatmapCanvas({ grid, label, max = 160 }: { grid: NdGridView; label: string; max?: number }) {
  const ref = useRef<HTMLCanvasElement>(null);
  const { shownRows: h, shownCols: w, cells, min, max: top } = grid;
  useEffect(() => {
    const context = ref.current?.getContext('2d');
    if (!context) return;
    const image = context.createImageData(w, h);
    const span = top - min;
    for (let p = 0; p < w * h; p++) {
      const v = cells[p];
      if (!Number.isFinite(v)) continue;
      const gray = span > 0 ? Math.round(((v - min) / span) * 255) : 128;
      image.data[p * 4] = gray;
      image.data[p * 4 + 1] = gray;
      image.data[p * 4 + 2] = gray;
      image.data[p * 4 + 3] = 255;
    }
    context.putImageData(image, 0, 0);
  }, [cells, w, h, min, top]);
  const fit = max / Math.max(w, h, 1);
  const scale = fit >= 1 ? Math.floor(fit) : fit;
  const sampled = grid.rowStep > 1 || grid.colStep > 1;
  const text = `${grid.rows} × ${grid.cols}, min ${short(min)}, max ${short(top)}${
    sampled ? `, every ${grid.rowStep}th row and ${grid.colStep}th column drawn` : ''
  }`;
  return (
    <span
      className="heatmap"
      data-testid="heatmap"
      data-rows={grid.rows}
      data-cols={grid.cols}
      data-min={min}
      data-max={top}
    >
      <canvas
        ref={ref}
        className="image-value"
        width={w}
        height={h}
        style={{ width: w * scale, height: h * scale }}
        role="img"
        aria-label={`${label}: heatmap, ${text}`}
      />
      <span className="muted heatmap-text">{text} (dark = min, light = max)</span>
    </span>
  );
}
