import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { HistogramView } from '../../protocol';

const WIDTH = 340;
const HEIGHT = 150;

/** The page's colours (light or dark theme), for a chart drawn on a canvas. */
function colours(): { ink: string; line: string; accent: string; soft: string } {
  const style = getComputedStyle(document.documentElement);
  const get = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return {
    ink: get('--muted', '#5d6470'),
    line: get('--line', '#d9dbe0'),
    accent: get('--accent', '#1f5fbf'),
    soft: get('--accent-soft', '#dce8fb'),
  };
}

/** The page's theme (`data-theme` on the root), followed as the toggle changes it. */
function useThemeName(): string | undefined {
  const [theme, setTheme] = useState(document.documentElement.dataset.theme);
  useEffect(() => {
    const root = document.documentElement;
    const observer = new MutationObserver(() => setTheme(root.dataset.theme));
    observer.observe(root, { attributes: true, attributeFilter: ['data-theme'] });
    return () => observer.disconnect();
  }, []);
  return theme;
}

/** Bars of a histogram over their bins' edges (x: each bin's left edge, the last edge closing it). */
function chartData(h: HistogramView): uPlot.AlignedData {
  const x = h.edges.slice();
  const y: Array<number | null> = [...h.counts, null];
  return [x, y];
}

/**
 * A histogram drawn with uPlot. The canvas is decoration for sighted users: the same counts
 * are in the bins table beside it (its text alternative), so the chart itself is hidden from
 * assistive technology. Partial results update the same chart as they arrive.
 */
export function HistogramChart({ histogram, label }: { histogram: HistogramView; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);
  const latest = useRef(histogram);
  latest.current = histogram;
  // Canvas colours are read once per chart: a theme change draws it again.
  const theme = useThemeName();

  // biome-ignore lint/correctness/useExhaustiveDependencies: `theme` changes the colours read from the page.
  useEffect(() => {
    const c = colours();
    const axis = { stroke: c.ink, grid: { stroke: c.line, width: 1 }, ticks: { stroke: c.line, width: 1 } };
    const options: uPlot.Options = {
      width: WIDTH,
      height: HEIGHT,
      legend: { show: false },
      cursor: { show: false },
      scales: { x: { time: false }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.05 : 1] } },
      axes: [
        { ...axis, size: 28 },
        { ...axis, size: 48 },
      ],
      series: [
        {},
        {
          label,
          stroke: c.accent,
          fill: c.soft,
          width: 1,
          paths: uPlot.paths.bars?.({ align: 1, size: [1, Number.POSITIVE_INFINITY], gap: 1 }),
          points: { show: false },
        },
      ],
    };
    const target = box.current;
    if (!target) return;
    chart.current = new uPlot(options, chartData(latest.current), target);
    return () => {
      chart.current?.destroy();
      chart.current = null;
    };
  }, [label, theme]);

  useEffect(() => {
    chart.current?.setData(chartData(histogram));
  }, [histogram]);

  return <div className="histogram-chart" ref={box} aria-hidden="true" />;
}
