import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** One line of a chart: its label, values (null: a gap), colour and how values read on the axis. */
export interface Line {
  label: string;
  values: Array<number | null>;
  stroke: string;
}

/**
 * A time series chart drawn by uPlot: `t` in epoch seconds, one line per series, `format` for the y axis and the
 * legend. Redrawn when the data change; sized to its box's width.
 */
export function TimeChart({
  title,
  t,
  lines,
  format,
  testId,
  yMax,
}: {
  title: string;
  t: number[];
  lines: Line[];
  format: (v: number) => string;
  testId: string;
  yMax?: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const opts: uPlot.Options = {
      width: Math.max(320, el.clientWidth - 4),
      height: 180,
      scales: { y: { range: (_u, min, max) => [0, yMax ?? Math.max(max, min + 1)] } },
      axes: [{}, { values: (_u, splits) => splits.map(format), size: 70 }],
      series: [
        {},
        ...lines.map((l) => ({
          label: l.label,
          stroke: l.stroke,
          width: 1.5,
          // a bucket between empty ones is a dot (a line needs two neighbours)
          points: { show: true, size: 4 },
          value: (_u: uPlot, v: number | null) => (v === null ? '—' : format(v)),
        })),
      ],
    };
    const plot = new uPlot(opts, [t, ...lines.map((l) => l.values)] as uPlot.AlignedData, el);
    return () => plot.destroy();
  }, [t, lines, format, yMax]);
  const points = lines.reduce((n, l) => n + l.values.filter((v) => v !== null).length, 0);
  return (
    <div className="chart" data-testid={testId} data-points={points}>
      <strong>{title}</strong>
      <div ref={box} />
    </div>
  );
}
