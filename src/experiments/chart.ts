/**
 * Experiment results as CSV, JSON and an SVG chart drawn with Vega-Lite (compiled to Vega and
 * rendered headless to SVG): every series, measured and analytic, on one chart.
 */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { ExperimentResult, Series } from '../families/types.js';

export function toCsv(r: ExperimentResult): string {
  const lines = ['series,kind,x,y'];
  for (const s of r.series) for (const p of s.points) lines.push(`${JSON.stringify(s.name)},${s.kind},${p.x},${p.y}`);
  return lines.join('\n') + '\n';
}

/** The colour group of a series: its own, or its name without the word naming its kind. */
export function groupOf(s: Series): string {
  return (
    s.group ?? (s.name.replace(/\s*\b(measured|recursion|analytic|exact|approx(imation)?)\b\s*$/i, '').trim() || s.name)
  );
}

/**
 * The chart: a measured series and its analytic curve share a colour (solid and dashed lines, the
 * legend shows both styles); measured points are dots. On a log axis a measured 0 cannot be drawn
 * where it is, so it is drawn as a downward triangle at the axis floor (below every other point)
 * and named so in the legend.
 */
export async function toSvg(r: ExperimentResult): Promise<string> {
  const positive = r.series.flatMap((s) => s.points.filter((p) => p.y > 0).map((p) => p.y));
  const floor = r.logY && positive.length ? Math.min(...positive) / 3 : 0;
  const rows = r.series.flatMap((s) =>
    s.points.map((p) => ({ series: s.name, group: groupOf(s), kind: s.kind, x: p.x, y: p.y })),
  );
  const lines = rows.filter((p) => !r.logY || p.y > 0);
  const zeros = r.logY ? rows.filter((p) => p.y <= 0 && p.kind === 'measured').map((p) => ({ ...p, y: floor })) : [];
  const x = { field: 'x', type: 'quantitative' as const, title: r.xLabel, axis: { format: '~g' } };
  const y = {
    field: 'y',
    type: 'quantitative' as const,
    title: r.yLabel,
    scale: r.logY ? { type: 'log' as const } : {},
    axis: { format: r.logY ? '.0e' : '~g' },
  };
  const color = { field: 'group', type: 'nominal' as const, title: 'series' };
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: r.title,
    width: 560,
    height: 320,
    layer: [
      {
        data: { values: lines },
        mark: { type: 'line' },
        encoding: {
          x,
          y,
          color,
          detail: { field: 'series', type: 'nominal' },
          strokeDash: {
            field: 'kind',
            type: 'nominal',
            title: 'line',
            scale: {
              domain: ['measured', 'analytic'],
              range: [
                [1, 0],
                [6, 4],
              ],
            },
            legend: { symbolType: 'stroke', symbolStrokeWidth: 2 },
          },
        },
      },
      {
        data: { values: lines.filter((p) => p.kind === 'measured') },
        mark: { type: 'point', filled: true, size: 30 },
        encoding: { x, y, color },
      },
      ...(zeros.length
        ? [
            {
              data: { values: zeros.map((p) => ({ ...p, zero: 'measured 0 (drawn at the axis floor)' })) },
              mark: { type: 'point' as const, shape: 'triangle-down', filled: true, size: 60 },
              encoding: {
                x,
                y,
                color,
                shape: { field: 'zero', type: 'nominal' as const, title: null, scale: { range: ['triangle-down'] } },
              },
            },
          ]
        : []),
    ],
  };
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  // Embed the data so readers (and tests) can recover every series from the file itself.
  const meta = `<metadata id="bloomforge-series">${escapeXml(JSON.stringify(r.series))}</metadata>`;
  return svg.replace(/^(<svg[^>]*>)/, `$1${meta}`);
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
