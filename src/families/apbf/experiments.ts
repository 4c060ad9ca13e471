/**
 * The APBF paper's experiments (Shtul et al. §5): Fig. 2 (fill ratio per slice), Fig. 4 (decay of
 * the probability of reporting through the transition zone), Fig. 6 (false positives as the filter
 * fills, window 10^3, 10^4 distinct inserts) and Figs. 7/8 (false positives vs duplicate rate).
 * Each returns measured and analytic series; the analytic values are the §5.3 recursions at the
 * insert counts (or distinct keys) each slice really holds at that moment.
 */
import { deriveApbf } from './config.js';
import type { ApbfDerived } from './types.js';
import { falsePositiveRate, queryAccesses, realFillRatios } from './analysis.js';
import { fillRatio } from '../../analysis/bloom.js';
import { consistentDiffs, meanInterval } from '../../analysis/stats.js';
import { distinctWorkload } from '../../model/workloads.js';
import { Rng } from '../../util/rng.js';
import type { ExperimentDef, ExperimentOptions, ExperimentResult, Series } from '../types.js';
import { engineFor, type FilterEngine } from './engines.js';

function cfg(k: number, l: number, extra: Record<string, unknown>): ApbfDerived {
  return deriveApbf({ name: `apbf_k${k}_l${l}`, filter: 'apbf', k, l, keyBits: 64, seed: 7, ...extra });
}

/** Inserts each logical slice has received after S completed generations and c inserts. */
export function slicesInserts(k: number, l: number, g: number, shifts: number, c: number): number[] {
  return Array.from({ length: k + l }, (_, i) => {
    let n = i < k ? c : 0;
    for (let t = 1; t <= Math.min(i, shifts); t++) if (i - t < k) n += g;
    return n;
  });
}

/** Fig. 2: fill ratio of each slice just before a shift, APBF k = 10, l = 15. */
export function fillRatioExperiment(o: ExperimentOptions): ExperimentResult {
  const c = cfg(10, 15, { sliceBits: 4096 });
  const e = engineFor(o.engine, c);
  const keys = distinctWorkload(c.keyBits, o.seed * 1_000_003);
  const rng = new Rng(o.seed);
  const total = (c.k + c.l + 2) * c.generation;
  for (let i = 0; i < total; i++) {
    e.insert(keys.nextKey(rng));
    if (i % 1000 === 0) o.progress?.(i, total);
  }
  // Advance to the moment just before a shift.
  while (e.count() !== c.generation) e.insert(keys.nextKey(rng));
  const measured = e.fillRatios();
  const analytic = realFillRatios(c.k, c.l, c.segmentBits, c.generation);
  return {
    name: 'fill-ratio',
    title: `Fig. 2: fill ratio per slice just before a shift (APBF k=${c.k}, l=${c.l}, m=${c.segmentBits})`,
    xLabel: 'logical slice i',
    yLabel: 'fill ratio',
    series: [
      { name: 'measured', kind: 'measured', points: measured.map((y, x) => ({ x, y })) },
      { name: '1 - (1 - 1/m)^(j g)', kind: 'analytic', points: analytic.map((y, x) => ({ x, y })) },
      {
        name: "paper's j/(2k)",
        kind: 'analytic',
        points: analytic.map((_, x) => ({ x, y: Math.min(x + 1, c.k) / (2 * c.k) })),
      },
    ],
    params: { engine: o.engine, k: c.k, l: c.l, m: c.segmentBits, g: c.generation },
    command: `npx bloomforge experiment fill-ratio --engine ${o.engine}`,
    checks: [
      {
        what: 'every slice within 4 binomial standard deviations of 1-(1-1/m)^(jg)',
        ok: measured.every(
          (y, i) =>
            Math.abs(y - analytic[i]!) <= 4 * Math.sqrt((analytic[i]! * (1 - analytic[i]!)) / c.segmentBits) + 1e-9,
        ),
      },
    ],
  };
}

/** Fig. 4: probability of reporting an inserted key vs its age (inserts ago), k = 10, l = 15. */
export function decayExperiment(o: ExperimentOptions): ExperimentResult {
  const c = cfg(10, 15, { sliceBits: 4096 });
  const g = c.generation;
  const e = engineFor(o.engine, c);
  const keys = distinctWorkload(c.keyBits, o.seed * 7919);
  const rng = new Rng(o.seed);
  const history: bigint[] = [];
  const bucket = Math.ceil(g / 2);
  const maxAge = (c.k + c.l + 3) * g;
  const buckets = Math.ceil(maxAge / bucket);
  const hits = new Array<number>(buckets).fill(0);
  const tries = new Array<number>(buckets).fill(0);
  const points = Math.max(4, Math.round(8 * o.scale));
  let done = 0;
  while (done < points) {
    const key = keys.nextKey(rng);
    e.insert(key);
    history.push(key);
    if (history.length > maxAge + 1) history.shift();
    if (e.count() !== g || history.length <= maxAge) continue;
    // Just before a shift: probe keys of every age (age 0 = the last insert).
    for (let a = 0; a < maxAge; a += 3) {
      const b = Math.floor(a / bucket);
      tries[b]!++;
      if (e.query(history[history.length - 1 - a]!)) hits[b]!++;
    }
    done++;
    o.progress?.(done, points);
  }
  const r = realFillRatios(c.k, c.l, c.segmentBits, g);
  const report = (age: number): number => {
    const j = Math.floor(age / g); // generations since its insert; its slices are s_j..s_{j+k-1}
    const q = r.map((ri, i) => (i >= j && i < j + c.k ? 1 : ri));
    return queryAccesses(q, c.k, c.l).pTrue;
  };
  const measured = hits.map((h, b) => ({ x: b * bucket + bucket / 2, y: tries[b] ? h / tries[b]! : 0 }));
  return {
    name: 'decay',
    title: `Fig. 4: probability of reporting vs age (APBF k=${c.k}, l=${c.l}, window ${c.window})`,
    xLabel: 'age (inserts since the key was inserted)',
    yLabel: 'probability of reporting',
    series: [
      { name: 'measured', kind: 'measured', points: measured },
      { name: 'recursion', kind: 'analytic', points: measured.map((p) => ({ x: p.x, y: report(p.x) })) },
    ],
    params: { engine: o.engine, k: c.k, l: c.l, m: c.segmentBits, g, window: c.window },
    command: `npx bloomforge experiment decay --engine ${o.engine}`,
    checks: [
      {
        what: 'every key younger than the window is reported',
        ok: measured.filter((p) => p.x + bucket / 2 <= c.window).every((p) => p.y === 1),
      },
    ],
  };
}

/** Fig. 6: fp as the filter fills; the lowest (k, l) per aimed fp, window 10^3, 10^4 distinct inserts. */
export function fpConvergenceExperiment(o: ExperimentOptions): ExperimentResult {
  const cases: [number, number, number][] = [
    [4, 3, 2_000],
    [7, 5, 10_000],
    [10, 7, 60_000],
  ];
  const series: Series[] = [];
  const checks: { what: string; ok: boolean }[] = [];
  const params: Record<string, unknown> = { engine: o.engine, window: 1000, inserts: 10_000 };
  cases.forEach(([k, l, probes0], ci) => {
    const probes = Math.max(100, Math.round(probes0 * o.scale));
    const c = cfg(k, l, { generation: Math.ceil(1000 / l) });
    params[`k${k}_l${l}`] = { m: c.segmentBits, g: c.generation, probes };
    const e: FilterEngine = engineFor(o.engine, c);
    const ins = distinctWorkload(c.keyBits, 0);
    const fresh = distinctWorkload(c.keyBits, 2 ** 40 + ci * 2 ** 30);
    const rng = new Rng(o.seed + ci);
    const measured: { x: number; y: number }[] = [];
    const analytic: { x: number; y: number }[] = [];
    const diffs: number[] = [];
    let totalHits = 0;
    let expectedHits = 0;
    let shifts = 0;
    for (let n = 1; n <= 10_000; n++) {
      if (e.count() === c.generation) shifts++;
      e.insert(ins.nextKey(rng));
      if (n % 250 !== 0) continue;
      let hits = 0;
      for (let j = 0; j < probes; j++) if (e.query(fresh.nextKey(rng))) hits++;
      const r = slicesInserts(k, l, c.generation, shifts, e.count()).map((ni) => fillRatio(c.segmentBits, ni));
      const a = falsePositiveRate(r, k, l);
      measured.push({ x: n, y: hits / probes });
      analytic.push({ x: n, y: a });
      if (shifts >= k + l) {
        diffs.push(hits / probes - a);
        totalHits += hits;
        expectedHits += a * probes;
      }
      o.progress?.(ci * 40 + n / 250, cases.length * 40);
    }
    series.push({ name: `k=${k} l=${l} measured`, kind: 'measured', points: measured });
    series.push({ name: `k=${k} l=${l} recursion`, kind: 'analytic', points: analytic });
    const { mean, half } = meanInterval(diffs);
    checks.push({
      what: `k=${k} l=${l}: analytic within the 99% interval of the measured fp (diff ${mean.toExponential(2)} ± ${half.toExponential(2)})`,
      ok: consistentDiffs(diffs, totalHits, expectedHits),
    });
  });
  return {
    name: 'fp-convergence',
    title: 'Fig. 6: false positives as the filter fills (window 10^3, 10^4 distinct inserts)',
    xLabel: 'inserts',
    yLabel: 'false-positive rate',
    logY: true,
    series,
    params,
    command: `npx bloomforge experiment fp-convergence --engine ${o.engine}`,
    checks,
  };
}

/**
 * Figs. 7 and 8: fp vs duplicate rate (window 10^3). With probability d an insert repeats one of
 * the last w keys — uniformly (Fig. 7) or Zipf-weighted by recency (the Zipf case) — else it is new.
 * Measured just before shifts by probing never-inserted keys; the analytic value uses the number
 * of distinct keys each slice really received.
 */
export function duplicatesExperiment(o: ExperimentOptions): ExperimentResult {
  const rates = [0, 0.2, 0.4, 0.6, 0.8];
  const configs: [number, number][] = [
    [4, 3],
    [6, 14],
  ];
  const series: Series[] = [];
  const checks: { what: string; ok: boolean }[] = [];
  for (const dist of ['uniform', 'zipf'] as const) {
    for (const [k, l] of configs) {
      const c = cfg(k, l, { generation: Math.ceil(1000 / l) });
      const measured: { x: number; y: number }[] = [];
      const analytic: { x: number; y: number }[] = [];
      for (const d of rates) {
        const e = engineFor(o.engine, c);
        const fresh = distinctWorkload(c.keyBits, 0);
        const probe = distinctWorkload(c.keyBits, 2 ** 44);
        const rng = new Rng(o.seed + Math.round(d * 100) + k);
        const recent: bigint[] = [];
        // Distinct keys per generation, newest last, to know what each slice holds.
        const gens: Set<bigint>[] = [new Set()];
        let hits = 0;
        let probes = 0;
        let expectedHits = 0;
        const diffs: number[] = [];
        for (let n = 0; n < 12 * c.window; n++) {
          if (e.count() === c.generation) gens.push(new Set());
          let key: bigint;
          if (recent.length > 0 && rng.float() < d) {
            const idx =
              dist === 'uniform'
                ? Math.floor(rng.float() * recent.length)
                : Math.min(recent.length - 1, Math.floor(1 / (rng.float() + 1e-9)) - 1);
            key = recent[recent.length - 1 - idx]!;
          } else key = fresh.nextKey(rng);
          e.insert(key);
          gens[gens.length - 1]!.add(key);
          recent.push(key);
          if (recent.length > c.window) recent.shift();
          if (e.count() !== c.generation || gens.length < c.k + c.l + 2) continue;
          // Slice i holds the distinct keys of the generations it took inserts in.
          const r = Array.from({ length: c.k + c.l }, (_, i) => {
            const s = new Set<bigint>();
            for (let t = Math.max(0, i - c.k + 1); t <= i; t++)
              for (const x of gens[gens.length - 1 - t] ?? []) s.add(x);
            return fillRatio(c.segmentBits, s.size);
          });
          const a = falsePositiveRate(r, c.k, c.l);
          const n0 = Math.max(200, Math.round(1500 * o.scale));
          let h = 0;
          for (let j = 0; j < n0; j++) if (e.query(probe.nextKey(rng))) h++;
          hits += h;
          probes += n0;
          expectedHits += a * n0;
          diffs.push(h / n0 - a);
          analytic.push({ x: d, y: a });
        }
        measured.push({ x: d, y: hits / probes });
        checks.push({
          what: `${dist} k=${k} l=${l} d=${d}: analytic within the 99% interval`,
          ok: consistentDiffs(diffs, hits, expectedHits),
        });
      }
      // One analytic point per rate: the mean over the sampled moments.
      const byRate = rates.map((d) => {
        const pts = analytic.filter((p) => p.x === d);
        return { x: d, y: pts.reduce((s, p) => s + p.y, 0) / pts.length };
      });
      series.push({ name: `${dist} k=${k} l=${l} measured`, kind: 'measured', points: measured });
      series.push({ name: `${dist} k=${k} l=${l} recursion`, kind: 'analytic', points: byRate });
    }
  }
  return {
    name: 'duplicates',
    title: 'Figs. 7 and 8: false positives vs duplicate rate (window 10^3)',
    xLabel: 'duplicate rate',
    yLabel: 'false-positive rate',
    logY: true,
    series,
    params: { engine: o.engine, window: 1000, rates, configs },
    command: `npx bloomforge experiment duplicates --engine ${o.engine}`,
    checks,
  };
}

/** The experiments `bloomforge experiment` and `report` run for this family. */
export const apbfExperiments: readonly ExperimentDef[] = [
  {
    name: 'fill-ratio',
    description: 'Fig. 2: fill ratio per slice just before a shift',
    simEngine: true,
    run: fillRatioExperiment,
  },
  { name: 'decay', description: 'Fig. 4: probability of reporting vs age', simEngine: true, run: decayExperiment },
  {
    name: 'fp-convergence',
    description: 'Fig. 6: false positives as the filter fills',
    simEngine: true,
    run: fpConvergenceExperiment,
  },
  {
    name: 'duplicates',
    description: 'Figs. 7, 8: false positives vs duplicate rate',
    simEngine: true,
    run: duplicatesExperiment,
  },
];
