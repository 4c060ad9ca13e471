/**
 * A² experiments, measured beside the analytic values of ./analysis.ts, with 99 % checks:
 * - `a2-fp`: the false-positive rate against the active half's fill j (0..κ−1, standby full),
 *   fp(j) = 1 − (1 − φ(κ))(1 − φ(j)), and the seed's both-halves-full 1 − (1 − φ(κ))²;
 * - `a2-age`: the probability that a key is found against its age (real inserts after it):
 *   1 up to κ − 1, then P(a) = (2κ − 1 − a)/κ plus false positives, down to the fp floor at 2κ − 1.
 * Both run on the model or on the RTL in the compiled simulator (`--engine sim`).
 */
import { consistentDiffs, zTwoSided } from '../../analysis/stats.js';
import { Rng } from '../../util/rng.js';
import type { ExperimentDef, ExperimentOptions, ExperimentResult } from '../types.js';
import { foundProbability, fpAt, fpBothFull } from './analysis.js';
import { deriveA2 } from './config.js';
import { engineFor } from './engines.js';
import type { A2Derived } from './types.js';

function expConfig(): A2Derived {
  return deriveA2({ name: 'a2_exp', filter: 'a2', k: 4, bankBits: 512, keyBits: 64, seed: 21 });
}

/** Poisson-binomial 99 % check: hits of independent trials with probabilities summing to `mean`. */
export function binomialOk(hits: number, mean: number, variance: number, z: number): boolean {
  return Math.abs(hits - mean) <= z * Math.sqrt(variance) + 0.5;
}

/** fp against the active half's fill. */
export function fpExperiment(o: ExperimentOptions): ExperimentResult {
  const c = expConfig();
  const e = engineFor(o.engine, c);
  // Random 64-bit keys (a collision among 10^6 of them has probability ~3·10^-8): the model's
  // independence assumption; structured keys (an arithmetic sequence) meet H3's linearity.
  const rng = new Rng(o.seed);
  const keys = { nextKey: (r: Rng): bigint => r.next64() };
  const fresh = keys;
  const buckets = 8;
  const width = Math.ceil(c.kappa / buckets);
  const probes = 16;
  const cycles = Math.max(3, Math.round((o.engine === 'sim' ? 30 : 200) * o.scale));
  // Per half-life (the unit: its two halves are one draw of the bank fills) and bucket.
  const unitHits: number[][] = Array.from({ length: buckets }, () => []);
  const unitExp: number[][] = Array.from({ length: buckets }, () => []);
  const unitTries: number[][] = Array.from({ length: buckets }, () => []);
  const hits = new Array<number>(buckets).fill(0);
  const expected = new Array<number>(buckets).fill(0);
  const tries = new Array<number>(buckets).fill(0);
  // Warm up: the standby half is full after the first swap.
  while (e.swaps() < 2) e.insert(keys.nextKey(rng));
  const target = e.swaps() + cycles;
  while (e.swaps() < target) {
    e.insert(keys.nextKey(rng));
    if (rng.float() >= 8 / width) continue;
    const j = e.activeCount();
    const b = Math.min(buckets - 1, Math.floor(j / width));
    let h = 0;
    for (let q = 0; q < probes; q++) if (e.query(fresh.nextKey(rng))) h++;
    const p = fpAt(c.k, c.bankBits, j, c.kappa);
    hits[b]! += h;
    expected[b]! += probes * p;
    tries[b]! += probes;
    const unit = e.swaps() - target + cycles;
    unitHits[b]![unit] = (unitHits[b]![unit] ?? 0) + h;
    unitExp[b]![unit] = (unitExp[b]![unit] ?? 0) + probes * p;
    unitTries[b]![unit] = (unitTries[b]![unit] ?? 0) + probes;
    o.progress?.(e.swaps() - target + cycles, cycles);
  }
  const x = (b: number): number => b * width + width / 2;
  const analytic = Array.from({ length: buckets }, (_, b) => {
    let s = 0;
    let n = 0;
    for (let j = b * width; j < Math.min(c.kappa, (b + 1) * width); j++, n++) s += fpAt(c.k, c.bankBits, j, c.kappa);
    return s / n;
  });
  const used = Array.from({ length: buckets }, (_, b) => b).filter((b) => tries[b]! > 0);
  return {
    name: 'a2-fp',
    title: `A² false positives vs the active half's fill (k=${c.k}, bankBits=${c.bankBits}, κ=${c.kappa})`,
    xLabel: 'keys in the active half j',
    yLabel: 'false-positive rate',
    series: [
      { name: 'measured', kind: 'measured', points: used.map((b) => ({ x: x(b), y: hits[b]! / tries[b]! })) },
      { name: '1-(1-φ(κ))(1-φ(j))', kind: 'analytic', points: used.map((b) => ({ x: x(b), y: analytic[b]! })) },
      {
        name: "the seed's 1-(1-φ(κ))² (both full)",
        kind: 'analytic',
        points: used.map((b) => ({ x: x(b), y: fpBothFull(c.k, c.bankBits, c.kappa) })),
      },
    ],
    params: { engine: o.engine, k: c.k, bankBits: c.bankBits, kappa: c.kappa, probes, halfLives: cycles },
    command: `npx bloomforge experiment a2-fp --engine ${o.engine}`,
    checks: used.map((b) => ({
      what: `j in [${b * width}, ${(b + 1) * width}): measured ${(hits[b]! / tries[b]!).toFixed(4)} within the 99% interval (Bonferroni over ${used.length}, t over half-lives) of ${(expected[b]! / tries[b]!).toFixed(4)} (${tries[b]} probes)`,
      ok: consistentDiffs(
        unitTries[b]!.flatMap((n, u) => (n ? [(unitHits[b]![u]! - unitExp[b]![u]!) / n] : [])),
        hits[b]!,
        expected[b]!,
        used.length,
      ),
    })),
  };
}

/** P(found) against the age of a key in real inserts. */
export function ageExperiment(o: ExperimentOptions): ExperimentResult {
  const c = expConfig();
  const e = engineFor(o.engine, c);
  const rng = new Rng(o.seed);
  const keys = { nextKey: (r: Rng): bigint => r.next64() };
  const K = c.kappa;
  const maxAge = Math.ceil(2.5 * K);
  const width = Math.ceil(K / 8);
  const buckets = Math.ceil(maxAge / width);
  const moments = Math.max(20, Math.round((o.engine === 'sim' ? 60 : 400) * o.scale));
  /** byCount[n]: the key whose real insert brought the count to n + 1. */
  const byCount: bigint[] = [];
  const hits = new Array<number>(buckets).fill(0);
  const tries = new Array<number>(buckets).fill(0);
  const mean = new Array<number>(buckets).fill(0);
  const variance = new Array<number>(buckets).fill(0);
  const insert = (): void => {
    const k = keys.nextKey(rng);
    if (e.insert(k)) byCount.push(k);
  };
  while (byCount.length < 3 * K) insert();
  for (let t = 0; t < moments; t++) {
    const gap = 1 + Math.floor(rng.float() * K);
    for (let i = 0; i < gap; i++) insert();
    for (let b = 0; b < buckets; b++) {
      const age = Math.min(maxAge - 1, b * width + Math.floor(rng.float() * width));
      const key = byCount[byCount.length - 1 - age]!;
      const p = foundProbability(c.k, c.bankBits, K, age);
      if (e.query(key)) hits[b]!++;
      tries[b]!++;
      mean[b]! += p;
      variance[b]! += p * (1 - p);
    }
    o.progress?.(t + 1, moments);
  }
  const x = (b: number): number => b * width + width / 2;
  const ages = Array.from({ length: maxAge }, (_, a) => a);
  return {
    name: 'a2-age',
    title: `A²: probability a key is found vs its age (k=${c.k}, bankBits=${c.bankBits}, κ=${K})`,
    xLabel: 'age (real inserts after the key)',
    yLabel: 'P(found)',
    series: [
      {
        name: 'measured',
        kind: 'measured',
        points: Array.from({ length: buckets }, (_, b) => ({ x: x(b), y: hits[b]! / tries[b]! })),
      },
      {
        name: 'min(1, (2κ-1-a)/κ) + false positives',
        kind: 'analytic',
        points: ages.filter((a) => a % 4 === 0).map((a) => ({ x: a, y: foundProbability(c.k, c.bankBits, K, a) })),
      },
    ],
    params: { engine: o.engine, k: c.k, bankBits: c.bankBits, kappa: K, moments, bucket: width },
    command: `npx bloomforge experiment a2-age --engine ${o.engine}`,
    checks: [
      {
        what: `every key with at most κ−1 = ${K - 1} real inserts after it found`,
        ok: Array.from({ length: buckets }, (_, b) => b)
          .filter((b) => (b + 1) * width <= K)
          .every((b) => hits[b] === tries[b]),
      },
      ...Array.from({ length: buckets }, (_, b) => ({
        what: `ages [${b * width}, ${(b + 1) * width}): ${hits[b]}/${tries[b]} found, expected ${mean[b]!.toFixed(1)} (99% interval, Bonferroni over ${buckets})`,
        ok: binomialOk(hits[b]!, mean[b]!, variance[b]!, zTwoSided(0.99, buckets)),
      })),
    ],
  };
}

export const a2Experiments: readonly ExperimentDef[] = [
  {
    name: 'a2-fp',
    description: "A²: false positives vs the active half's fill, measured beside 1-(1-φ(κ))(1-φ(j))",
    simEngine: true,
    run: fpExperiment,
  },
  {
    name: 'a2-age',
    description: 'A²: probability a key is found vs its age in inserts, measured beside the derived curve',
    simEngine: true,
    run: ageExperiment,
  },
];
