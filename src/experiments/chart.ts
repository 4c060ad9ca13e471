/**
 * Experiment results as CSV, JSON and an SVG chart drawn with Vega-Lite (compiled to Vega and
 * rendered headless to SVG): every series, measured and analytic, on one chart.
 */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { ExperimentResult } from '../families/types.js';

export function toCsv(r: ExperimentResult): string {
  const lines = ['series,kind,x,y'];
  for (const s of r.series) for (const p of s.points) lines.push(`${JSON.stringify(s.name)},${s.kind},${p.x},${p.y}`);
  return lines.join('\n') + '\n';
}

export async function toSvg(r: ExperimentResult): Promise<string> {
  const values = r.series.flatMap((s) =>
    s.points.filter((p) => !r.logY || p.y > 0).map((p) => ({ series: s.name, kind: s.kind, x: p.x, y: p.y })),
  );
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: r.title,
    width: 560,
    height: 320,
    data: { values },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'x', type: 'quantitative', title: r.xLabel },
      y: { field: 'y', type: 'quantitative', title: r.yLabel, scale: r.logY ? { type: 'log' } : {} },
      color: { field: 'series', type: 'nominal', title: null },
      strokeDash: {
        field: 'kind',
        type: 'nominal',
        title: null,
        scale: {
          domain: ['measured', 'analytic'],
          range: [
            [1, 0],
            [6, 4],
          ],
        },
      },
    },
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
