/**
 * Experiments of the Stable Bloom filter (word-local variant), on the reference model or on the
 * RTL in the compiled simulator (--engine sim), each measured beside the analytic curves of
 * ./analysis.ts with 99% interval checks:
 * - `sbf-stable-point`: from an empty filter, n distinct keys inserted; at checkpoints the
 *   fraction of zero cells (all banks) and the false-positive rate (fresh keys queried) beside the
 *   variant's chain (zeroCurve) and the stable values: the variant's, Deng & Rafiei's P0/FPS with
 *   m := k·cellsPerWord (the same when k divides P) and Deng & Rafiei's for an SBF of the same m
 *   with decrements anywhere (for comparison; not checked).
 * - `sbf-found-by-age`: past the stable point, the probability that a key inserted j inserts ago
 *   is still reported (the false-negative curve, 1 − FN(j)) beside foundCurve.
 * Both run on a preset (--preset, default stable_d2_k3).
 */
import fs from 'node:fs';
import path from 'node:path';
import { keyOfIndex } from '../../model/workloads.js';
import { proportionInterval, zTwoSided } from '../../analysis/stats.js';
import type { ExperimentDef, ExperimentOptions, ExperimentResult } from '../types.js';
import { bankRates, drFalsePositive, drStablePoint, foundCurve, stablePoint, zeroCurve } from './analysis.js';
import { deriveStable } from './config.js';
import { engineFor, type EngineOp } from './engines.js';
import type { StableDerived } from './types.js';
import { jsonNames } from '../../util/files.js';

const PRESETS = path.join(path.dirname(new URL(import.meta.url).pathname), 'presets');

function preset(name: string): StableDerived {
  const file = path.join(PRESETS, `${name}.json`);
  if (!fs.existsSync(file)) throw new Error(`no stable preset '${name}'`);
  return deriveStable(JSON.parse(fs.readFileSync(file, 'utf8')), file);
}

/** Inserts after which the chain is within about e^-8 of its stable point. */
function settleInserts(c: StableDerived): number {
  const rates = bankRates(c);
  const slowest = Math.min(...rates.map((r) => r.q + r.s));
  return Math.ceil((8 * (2 ** c.d - 1 + 1)) / slowest);
}

/** Distinct random-looking keys (a counter through keyOfIndex's mixer), one stream per salt. */
function keyStream(c: StableDerived, seed: number, salt: number): { nextKey: () => bigint } {
  let i = seed * 10_000_000;
  return { nextKey: () => keyOfIndex(i++, c.keyBits, salt) };
}

/** y inside the simultaneous 99% interval (over `tests` checks) of a proportion p over n trials. */
const within = (y: number, p: number, n: number, tests: number): boolean => {
  const [lo, hi] = proportionInterval(p, n, 0.99, tests);
  return y >= lo && y <= hi;
};

export function stablePointExperiment(o: ExperimentOptions): ExperimentResult {
  const c = preset(o.params.preset ?? 'stable_d2_k3');
  const e = engineFor(o.engine, c);
  const end = settleInserts(c);
  const points = 16;
  const at = Array.from({ length: points + 1 }, (_, i) => Math.round((end * i) / points));
  const analytic = zeroCurve(c, at);
  const probes = Math.max(200, Math.round(4000 * o.scale));
  const inserted = keyStream(c, o.seed, 5);
  const fresh = keyStream(c, o.seed, 6);
  const zeros: { x: number; y: number }[] = [];
  const fps: { x: number; y: number }[] = [];
  /** The fp the state at the checkpoint gives a fresh key: Π_i (1 − zeros of bank i). */
  const given: number[] = [];
  let n = 0;
  at.forEach((target, i) => {
    const ops: { op: EngineOp; key: bigint }[] = [];
    for (; n < target; n++) ops.push({ op: 'insert', key: inserted.nextKey() });
    e.run(ops);
    const z = e.bankZeros();
    zeros.push({ x: n, y: z.reduce((a, b) => a + b, 0) / z.length });
    given.push(z.reduce((a, zi) => a * (1 - zi), 1));
    const probe = Array.from({ length: probes }, () => ({ op: 'query' as const, key: fresh.nextKey() }));
    const hits = e.run(probe).filter(Boolean).length;
    fps.push({ x: n, y: hits / probes });
    o.progress?.(i + 1, at.length);
  });
  const sp = stablePoint(c);
  const max = 2 ** c.d - 1;
  const m = c.k * c.cells;
  const line = (y: number): { x: number; y: number }[] => [
    { x: 0, y },
    { x: end, y },
  ];
  const cellsN = c.k * c.cells;
  /** The state's fp g against an fp predicted from zero fraction zi (Var by the delta method). */
  const withinFp = (g: number, zi: number, fp: number, tests: number): boolean => {
    if (zi <= 0 || zi >= 1) return Math.abs(g - fp) < 1e-9;
    // Var(Π(1 − z_i)) ≈ fp² · k · z(1 − z)/(cells (1 − z)²)
    const sd = fp * Math.sqrt((c.k * zi) / (c.cells * (1 - zi)));
    return Math.abs(g - fp) <= zTwoSided(0.99, tests) * sd;
  };
  return {
    name: 'sbf-stable-point',
    title: `Stable point: zeros and fp vs inserts (${c.name}: k=${c.k}, d=${c.d}, cells=${c.cells}, P=${c.P}, ${c.cellsPerWord} cells/word)`,
    xLabel: 'inserts (distinct keys) since the filter was empty',
    yLabel: 'fraction of zero cells; false-positive rate (log scale)',
    logY: true,
    series: [
      { name: 'zeros measured', kind: 'measured', points: zeros },
      { name: 'zeros, variant chain', kind: 'analytic', points: analytic.map((a) => ({ x: a.n, y: a.zeros })) },
      { name: 'zeros, stable point (D&R with m := k·C)', kind: 'analytic', points: line(sp.zeros) },
      { name: 'zeros, D&R SBF of the same m', kind: 'analytic', points: line(drStablePoint(c.P, c.k, m, max)) },
      { name: 'fp measured', kind: 'measured', points: fps },
      { name: 'fp of the state, Π(1 − bank zeros)', kind: 'measured', points: given.map((y, i) => ({ x: at[i]!, y })) },
      { name: 'fp, variant chain', kind: 'analytic', points: analytic.map((a) => ({ x: a.n, y: a.fp })) },
      { name: 'fp, stable point (D&R FPS with m := k·C)', kind: 'analytic', points: line(sp.fp) },
      { name: 'fp, D&R SBF of the same m', kind: 'analytic', points: line(drFalsePositive(c.P, c.k, m, max)) },
    ],
    params: {
      engine: o.engine,
      preset: c.name,
      k: c.k,
      d: c.d,
      cells: c.cells,
      cellsPerWord: c.cellsPerWord,
      P: c.P,
      probes,
      inserts: end,
    },
    command: `npx bloomforge experiment sbf-stable-point --engine ${o.engine} --preset ${c.name}`,
    checks: [
      {
        what: `zero fraction within the simultaneous 99% intervals of the variant chain at all ${at.length} checkpoints (${cellsN} cells, binomial)`,
        ok: zeros.every((z, i) => within(z.y, analytic[i]!.zeros, cellsN, at.length)),
      },
      {
        what: `fp hits over all checkpoints within the 99% interval of Σ Π(1 − bank zeros) of the states (${probes * at.length} fresh keys, binomial sum)`,
        ok: (() => {
          const hits = fps.reduce((a, f) => a + f.y * probes, 0);
          const mean = given.reduce((a, g) => a + g * probes, 0);
          const sd = Math.sqrt(given.reduce((a, g) => a + g * (1 - g) * probes, 0));
          return Math.abs(hits - mean) <= zTwoSided() * Math.max(sd, 1e-9);
        })(),
      },
      {
        what: `fp within the simultaneous 99.9% intervals of Π(1 − bank zeros) of the state at every one of the ${at.length} checkpoints (${probes} fresh keys each)`,
        ok: fps.every((f, i) => {
          const [lo, hi] = proportionInterval(given[i]!, probes, 0.999, at.length);
          return f.y >= lo && f.y <= hi;
        }),
      },
      {
        what: `fp of the state within the simultaneous 99% intervals of the chain's fp at all ${at.length} checkpoints (bank zeros binomial, delta method)`,
        ok: given.every((g, i) => withinFp(g, analytic[i]!.zeros, analytic[i]!.fp, at.length)),
      },
      {
        what: 'the last checkpoint within the 99% intervals of the stable point (zeros binomial; fp of the state by the delta method)',
        ok: within(zeros[points]!.y, sp.zeros, cellsN, 1) && withinFp(given[points]!, sp.zeros, sp.fp, 1),
      },
    ],
  };
}

export function foundByAgeExperiment(o: ExperimentOptions): ExperimentResult {
  const c = preset(o.params.preset ?? 'stable_d2_k3');
  const e = engineFor(o.engine, c);
  const keys = keyStream(c, o.seed, 7);
  // Reach the stable point first.
  const warm = settleInserts(c);
  e.run(Array.from({ length: warm }, () => ({ op: 'insert' as const, key: keys.nextKey() })));
  // Ages up to where the curve meets the stable fp.
  const sp = stablePoint(c);
  const probeCurve = foundCurve(
    c,
    Array.from({ length: 64 }, (_, i) => i * Math.ceil(warm / 64)),
  );
  const tail = probeCurve.find((p) => p.found < sp.fp + 0.02 * (1 - sp.fp))?.j ?? warm;
  const ages = Array.from({ length: 20 }, (_, i) => Math.round((tail * i) / 19));
  const maxAge = ages[ages.length - 1]!;
  const rounds = Math.max(100, Math.round(1000 * o.scale));
  const history: bigint[] = [];
  const hits = new Array<number>(ages.length).fill(0);
  let tries = 0;
  // Each round: one insert of a fresh key, then a query of the key of every age.
  for (let t = 0; t < maxAge + 1 + rounds; t++) {
    const key = keys.nextKey();
    history.push(key);
    const ops: { op: EngineOp; key: bigint }[] = [{ op: 'insert', key }];
    const probing = history.length > maxAge;
    if (probing) for (const a of ages) ops.push({ op: 'query', key: history[history.length - 1 - a]! });
    const answers = e.run(ops);
    if (probing) {
      tries++;
      ages.forEach((_, i) => {
        if (answers[1 + i]) hits[i]!++;
      });
    }
    if (history.length > maxAge + 1) history.shift();
    if (t % 100 === 0) o.progress?.(t, maxAge + 1 + rounds);
  }
  const analytic = foundCurve(c, ages);
  const measured = ages.map((a, i) => ({ x: a, y: hits[i]! / tries }));
  return {
    name: 'sbf-found-by-age',
    title: `Probability that a key inserted j inserts ago is reported (${c.name}: k=${c.k}, d=${c.d}, cells=${c.cells}, P=${c.P})`,
    xLabel: 'age j (inserts of other keys since the key was inserted)',
    yLabel: 'probability of reporting (1 − false-negative rate)',
    series: [
      { name: 'measured', kind: 'measured', points: measured },
      { name: 'variant chain from Max', kind: 'analytic', points: analytic.map((a) => ({ x: a.j, y: a.found })) },
      {
        name: 'stable fp (the floor)',
        kind: 'analytic',
        points: [
          { x: 0, y: sp.fp },
          { x: maxAge, y: sp.fp },
        ],
      },
    ],
    params: { engine: o.engine, preset: c.name, k: c.k, d: c.d, cells: c.cells, P: c.P, rounds: tries, warm },
    command: `npx bloomforge experiment sbf-found-by-age --engine ${o.engine} --preset ${c.name}`,
    checks: [
      {
        what: `every age within the simultaneous 99% intervals of the chain (${ages.length} ages, ${tries} keys each)`,
        ok: measured.every((p, i) => within(p.y, analytic[i]!.found, tries, ages.length)),
      },
      { what: 'age 0 (the key just inserted) is always reported', ok: measured[0]!.y === 1 },
    ],
  };
}

const presetOption = {
  name: 'preset',
  flags: '--preset <name>',
  description: 'stable preset to run',
  default: 'stable_d2_k3',
  choices: () => jsonNames(PRESETS),
};

export const stableExperiments: readonly ExperimentDef[] = [
  {
    name: 'sbf-stable-point',
    description: 'SBF: zeros and fp vs inserts, measured beside the stable-point analysis',
    simEngine: true,
    options: [presetOption],
    run: stablePointExperiment,
  },
  {
    name: 'sbf-found-by-age',
    description: 'SBF: probability of reporting a key vs its age (the false-negative curve)',
    simEngine: true,
    options: [presetOption],
    run: foundByAgeExperiment,
  },
];
