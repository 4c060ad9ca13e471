/**
 * The set filters' experiment: measured false positives as the filter fills, beside the exact
 * rate and the e^{−kn/m} approximation (analysis.ts), for a basic, a partitioned and two blocked
 * filters of the same memory (16 Kbit; the iCE40 presets' shapes and 32-bit blocks) sized for
 * about the same n.
 *
 * Each of R independent runs (disjoint key sets) inserts up to 2n distinct keys and, at eight
 * checkpoints n/4, n/2, …, 2n, queries P never-inserted keys. The measured fp at a checkpoint is
 * the hit fraction over all runs. Checks, per variant: the exact value lies in the 99 % interval
 * of the measured one (Student t over the runs, which carries both the sampling noise and the
 * run-to-run spread of the fill) — at n, and for the mean difference over all checkpoints; when
 * hits are too rare for a t interval, a two-sided Poisson test on the total count decides.
 * Runs on the model or on the RTL in the compiled simulator (`--engine sim`).
 */
import { keyOfIndex } from '../../model/workloads.js';
import { consistentDiffs, meanInterval } from '../../analysis/stats.js';
import type { ExperimentDef, ExperimentOptions, ExperimentResult, Series } from '../types.js';
import { fpApprox, fpExact } from './analysis.js';
import { deriveBloom } from './config.js';
import { engineFor } from './engines.js';
import type { BloomDerived } from './types.js';

/**
 * The filters the experiment compares: 16 Kbit each, the iCE40 presets' shapes, and a blocked
 * filter of 32-bit blocks, whose fp is clearly above the e^{−kn/m} form (small blocks vary more
 * in load).
 */
export function experimentConfigs(): BloomDerived[] {
  const common = { keyBits: 64, seed: 11 };
  return [
    deriveBloom({ name: 'basic_k4', filter: 'basic', k: 4, bits: 16384, ...common }),
    deriveBloom({ name: 'partitioned_k4', filter: 'partitioned', k: 4, sliceBits: 4096, ...common }),
    deriveBloom({ name: 'blocked_b512_4', filter: 'blocked', blockBits: 512, bitsPerBlock: 4, bits: 16384, ...common }),
    deriveBloom({ name: 'blocked_b32_4', filter: 'blocked', blockBits: 32, bitsPerBlock: 4, bits: 16384, ...common }),
  ];
}

export function fpExperiment(o: ExperimentOptions): ExperimentResult {
  const runs = Math.max(5, Math.round(20 * o.scale));
  const probes = Math.max(500, Math.round(4000 * o.scale));
  const configs = experimentConfigs();
  const series: Series[] = [];
  const checks: { what: string; ok: boolean }[] = [];
  const params: Record<string, unknown> = { engine: o.engine, runs, probes };
  configs.forEach((c, ci) => {
    const n = c.items;
    const points = Array.from({ length: 8 }, (_, j) => Math.round(((j + 1) * n) / 4));
    const hits = points.map(() => 0);
    const perRun: number[][] = points.map(() => []);
    const e = engineFor(o.engine, c);
    for (let r = 0; r < runs; r++) {
      e.clear();
      // Disjoint key sets per run: key numbers from base (inserts) and base + 2^30 (probes).
      const base = ((o.seed % 1024) * 1024 + (r % 1024)) * 2 ** 31;
      let inserted = 0;
      points.forEach((target, j) => {
        const keys: bigint[] = [];
        for (; inserted < target; inserted++) keys.push(keyOfIndex(base + inserted, c.keyBits, ci));
        e.insertAll(keys);
        const fresh = Array.from({ length: probes }, (_, i) =>
          keyOfIndex(base + 2 ** 30 + j * probes + i, c.keyBits, ci),
        );
        const h = e.countHits(fresh);
        hits[j]! += h;
        perRun[j]!.push(h / probes);
      });
      o.progress?.(ci * runs + r + 1, configs.length * runs);
    }
    const exact = points.map((x) => fpExact(c, x));
    const approx = points.map((x) => fpApprox(c.bits, c.k, x));
    const label = c.filter === 'blocked' ? `blocked B=${c.blockBits} b=${c.k}` : `${c.filter} k=${c.k}`;
    series.push({
      name: `${label} measured`,
      kind: 'measured',
      points: points.map((x, j) => ({ x, y: hits[j]! / (runs * probes) })),
    });
    series.push({ name: `${label} exact`, kind: 'analytic', points: points.map((x, j) => ({ x, y: exact[j]! })) });
    series.push({
      name: `${label} (1-e^(-kn/m))^k`,
      kind: 'analytic',
      points: points.map((x, j) => ({ x, y: approx[j]! })),
    });
    params[c.name] = { filter: c.filter, k: c.k, m: c.bits, B: c.blockBits, n };
    // At n (checkpoint 4): the per-run fps against the exact value.
    const atN = 3;
    const iv = meanInterval(perRun[atN]!);
    checks.push({
      what: `${label}: exact fp at n = ${n} (${exact[atN]!.toExponential(3)}) within the 99% interval of the measured ${iv.mean.toExponential(3)} ± ${iv.half.toExponential(2)}`,
      ok: consistentDiffs(
        perRun[atN]!.map((y) => y - exact[atN]!),
        hits[atN]!,
        exact[atN]! * runs * probes,
      ),
    });
    if (c.filter === 'blocked' && c.blockBits <= 32) {
      const a = meanInterval(perRun[atN]!.map((y) => y - approx[atN]!));
      checks.push({
        what: `${label}: the e^(-kn/m) form (${approx[atN]!.toExponential(3)}) lies outside the 99% interval at n (the checks can reject)`,
        ok: Math.abs(a.mean) > a.half,
      });
    }
    // Over all checkpoints: one mean difference per run.
    const diffs = Array.from({ length: runs }, (_, r) => points.reduce((s, _, j) => s + perRun[j]![r]! - exact[j]!, 0));
    const all = meanInterval(diffs);
    checks.push({
      what: `${label}: exact fp within the 99% interval over n/4..2n (mean summed difference ${all.mean.toExponential(2)} ± ${all.half.toExponential(2)})`,
      ok: consistentDiffs(
        diffs,
        hits.reduce((s, h) => s + h, 0),
        exact.reduce((s, x) => s + x, 0) * runs * probes,
      ),
    });
  });
  return {
    name: 'set-fp',
    title:
      'Set filters: false positives as the filter fills (basic, partitioned, blocked B=512 and B=32; 16 Kbit each)',
    xLabel: 'inserts n',
    yLabel: 'false-positive rate',
    logY: true,
    series,
    params,
    command: `npx bloomforge experiment set-fp --engine ${o.engine}`,
    checks,
  };
}

export const bloomExperiments: readonly ExperimentDef[] = [
  {
    name: 'set-fp',
    description: 'set filters: measured fp vs inserts beside the exact and e^(-kn/m) curves',
    simEngine: true,
    run: fpExperiment,
  },
];
