/**
 * Experiments of the bitwise Bloom filter: count error, false positives and the reach of the
 * levels against the count distribution — Zipf streams of skew 0.8, 1.0 and 1.2 over a universe of
 * the config's n items (`--inserts-per-item` adds per item on average) — measured on the model or
 * on the RTL (`--engine sim`), beside the analytic values of ./analysis.ts evaluated on the
 * multiplicities the stream really had.
 */
import fs from 'node:fs';
import path from 'node:path';
import { distinctWorkload, zipfWorkload } from '../../model/workloads.js';
import { proportionWithin, zTwoSided } from '../../analysis/stats.js';
import { Rng } from '../../util/rng.js';
import type { ExperimentDef, ExperimentOptions, ExperimentResult, Series } from '../types.js';
import { falsePositives, itemFigures, profileFigures, type Profile } from './analysis.js';
import { deriveBitwise } from './config.js';
import { engineFor, type BitwiseOp } from './engines.js';
import type { BitwiseDerived } from './types.js';
import { jsonNames } from '../../util/files.js';

const SKEWS = [0.8, 1.0, 1.2];
const PRESETS = path.join(path.dirname(new URL(import.meta.url).pathname), 'presets');

const OPTIONS = [
  {
    name: 'bitwisePreset',
    flags: '--bitwise-preset <name>',
    description: 'bitwise preset the experiment runs on',
    default: 'bitwise_l3_w448',
    choices: () => jsonNames(PRESETS),
  },
  {
    name: 'insertsPerItem',
    flags: '--inserts-per-item <x>',
    description: 'adds per item of the universe (n items) in each Zipf stream',
    default: '10',
  },
] as const;

function presetConfig(name: string): BitwiseDerived {
  const file = path.join(PRESETS, `${name}.json`);
  if (!fs.existsSync(file)) throw new Error(`--bitwise-preset: no bitwise preset '${name}'`);
  return deriveBitwise(JSON.parse(fs.readFileSync(file, 'utf8')), `preset ${name}`);
}

export interface ZipfRun {
  skew: number;
  /** Distinct items added, with their multiplicities f and the counts the filter answered. */
  items: { f: number; count: number }[];
  profile: Profile;
  probes: number;
  /** Never-added keys whose count was > 0. */
  probeHits: number;
}

/** One Zipf stream: the adds, then a count of every added item and of `probes` never-added keys. */
export function zipfRun(c: BitwiseDerived, o: ExperimentOptions, skew: number): ZipfRun {
  const universe = c.items;
  const adds = Math.round(universe * Number(o.params.insertsPerItem ?? 10));
  const rng = new Rng(o.seed * 1000 + Math.round(skew * 100));
  const work = zipfWorkload(c.keyBits, universe, skew);
  const mult = new Map<bigint, number>();
  const ops: BitwiseOp[] = [];
  for (let i = 0; i < adds; i++) {
    const key = work.nextKey(rng);
    mult.set(key, (mult.get(key) ?? 0) + 1);
    ops.push({ op: 'insert', key });
  }
  const keys = [...mult.keys()];
  for (const key of keys) ops.push({ op: 'query', key });
  const probes = Math.max(1000, Math.round(20_000 * o.scale));
  const fresh = distinctWorkload(c.keyBits, 2 ** 40 + Math.round(skew * 1000));
  for (let i = 0; i < probes; i++) ops.push({ op: 'query', key: fresh.nextKey(rng) });
  const answers = engineFor(o.engine, c).run(ops);
  const items = keys.map((key, i) => ({ f: mult.get(key)!, count: Number(answers[adds + i]!) }));
  let probeHits = 0;
  for (let i = adds + keys.length; i < ops.length; i++) if (answers[i]! > 0n) probeHits++;
  const profile = new Map<number, number>();
  for (const it of items) profile.set(it.f, (profile.get(it.f) ?? 0) + 1);
  return { skew, items, profile, probes, probeHits };
}

function levelsText(c: BitwiseDerived): string {
  return c.levels.map((L) => `${L.cells}x${L.width}b k=${L.k}`).join(', ');
}

/** Count error vs skew: measured mean (Ĉ − f), mean |Ĉ − f|, and the model's E[Ĉ − f]. */
export function countErrorExperiment(o: ExperimentOptions): ExperimentResult {
  const c = presetConfig(o.params.bitwisePreset ?? OPTIONS[0].default);
  const signed: { x: number; y: number }[] = [];
  const abs: { x: number; y: number }[] = [];
  const analytic: { x: number; y: number }[] = [];
  const checks: { what: string; ok: boolean }[] = [];
  const params: Record<string, unknown> = { engine: o.engine, preset: c.name, levels: levelsText(c), n: c.items };
  SKEWS.forEach((s, si) => {
    const r = zipfRun(c, o, s);
    const d = r.items.map((it) => it.count - it.f);
    signed.push({ x: s, y: d.reduce((a, b) => a + b, 0) / d.length });
    abs.push({ x: s, y: d.reduce((a, b) => a + Math.abs(b), 0) / d.length });
    const model = profileFigures(c.levels, r.profile);
    analytic.push({ x: s, y: model.expectedError });
    // The measured mean against the model's 99% interval, with the model's own spread of the
    // mean (the errors are heavy-tailed: a rare zeroing at level 1 costs 16 counts at once).
    const half = zTwoSided() * model.meanErrorSd;
    const got = signed[signed.length - 1]!.y;
    checks.push({
      what: `s = ${s}: measured mean C − f (${got.toFixed(3)}) within the model's 99% interval ${model.expectedError.toFixed(3)} ± ${half.toFixed(3)}`,
      ok: Math.abs(got - model.expectedError) <= half,
    });
    params[`skew${s}`] = {
      distinct: r.items.length,
      adds: r.items.reduce((a, it) => a + it.f, 0),
      maxMultiplicity: Math.max(...r.items.map((it) => it.f)),
      overcounted: r.items.filter((it) => it.count > it.f).length,
      undercounted: r.items.filter((it) => it.count < it.f).length,
      falseNegatives: r.items.filter((it) => it.count === 0).length,
      falseNegativesModel: model.falseNegative * r.items.length,
    };
    o.progress?.(si + 1, SKEWS.length);
  });
  return {
    name: 'bitwise-count-error',
    title: `Bitwise count error vs Zipf skew (${c.name}: ${levelsText(c)}; n = ${c.items} items)`,
    xLabel: 'Zipf skew s',
    yLabel: 'count error per distinct item',
    series: [
      { name: 'measured mean (C − f)', kind: 'measured', points: signed },
      { name: 'measured mean |C − f|', kind: 'measured', points: abs },
      { name: 'digit cell model E[C] − f', kind: 'analytic', points: analytic },
    ],
    params,
    command: `npx bloomforge experiment bitwise-count-error --engine ${o.engine} --bitwise-preset ${c.name}`,
    checks,
  };
}

/** False positives vs skew: measured on never-added keys, and the formulas. */
export function fpExperiment(o: ExperimentOptions): ExperimentResult {
  const c = presetConfig(o.params.bitwisePreset ?? OPTIONS[0].default);
  const measured: { x: number; y: number }[] = [];
  const total: { x: number; y: number }[] = [];
  const level0: { x: number; y: number }[] = [];
  const checks: { what: string; ok: boolean }[] = [];
  const params: Record<string, unknown> = { engine: o.engine, preset: c.name, levels: levelsText(c), n: c.items };
  SKEWS.forEach((s, si) => {
    const r = zipfRun(c, o, s);
    const fp = falsePositives(c.levels, r.profile);
    measured.push({ x: s, y: r.probeHits / r.probes });
    total.push({ x: s, y: fp.total });
    level0.push({ x: s, y: fp.partitioned0 });
    params[`skew${s}`] = { distinct: r.items.length, probes: r.probes, probeHits: r.probeHits, perLevel: fp.perLevel };
    checks.push({
      what: `s = ${s}: fp of all levels within the 99% binomial interval of the measured fp (${r.probeHits}/${r.probes})`,
      ok: proportionWithin(r.probeHits, r.probes, fp.total, zTwoSided(), 1 / r.probes),
    });
    o.progress?.(si + 1, SKEWS.length);
  });
  return {
    name: 'bitwise-fp',
    title: `Bitwise false positives vs Zipf skew (${c.name}: ${levelsText(c)}; n = ${c.items} items)`,
    xLabel: 'Zipf skew s',
    yLabel: 'false-positive rate',
    logY: true,
    series: [
      { name: 'measured', kind: 'measured', points: measured },
      { name: '1 − Π(1 − fp_i), items per level from the digits', kind: 'analytic', points: total },
      { name: 'level 0 partitioned formula, all distinct items', kind: 'analytic', points: level0 },
    ],
    params,
    command: `npx bloomforge experiment bitwise-fp --engine ${o.engine} --bitwise-preset ${c.name}`,
    checks,
  };
}

/** Reach of each level vs multiplicity (skew 1.0): measured fraction with C ≥ 2^{W_i}, and the model. */
export function reachExperiment(o: ExperimentOptions): ExperimentResult {
  const c = presetConfig(o.params.bitwisePreset ?? OPTIONS[0].default);
  const r = zipfRun(c, o, 1.0);
  const series: Series[] = [];
  const checks: { what: string; ok: boolean }[] = [];
  // Multiplicity buckets [2^b, 2^{b+1}).
  const buckets = new Map<number, { f: number; count: number }[]>();
  for (const it of r.items) {
    const b = Math.floor(Math.log2(it.f));
    buckets.set(b, [...(buckets.get(b) ?? []), it]);
  }
  const order = [...buckets.keys()].sort((a, b) => a - b);
  const memo = new Map<number, ReturnType<typeof itemFigures>>();
  const figures = (f: number): ReturnType<typeof itemFigures> => {
    if (!memo.has(f)) memo.set(f, itemFigures(c.levels, r.profile, f));
    return memo.get(f)!;
  };
  for (let i = 0; i < c.levels.length; i++) {
    const T = 2 ** c.levels[i]!.offset;
    const measured: { x: number; y: number }[] = [];
    const analytic: { x: number; y: number }[] = [];
    let ok = true;
    for (const b of order) {
      const its = buckets.get(b)!;
      const m = its.filter((it) => it.count >= T).length / its.length;
      const a = its.reduce((s, it) => s + figures(it.f).reach[i]!, 0) / its.length;
      measured.push({ x: 2 ** b, y: m });
      analytic.push({ x: 2 ** b, y: a });
      ok &&= proportionWithin(m * its.length, its.length, a, zTwoSided(), 1 / its.length, 1e-4);
    }
    series.push({
      name: `level ${i} (C >= ${T}) measured`,
      kind: 'measured',
      points: measured,
      group: `level ${i} (C >= ${T})`,
    });
    series.push({
      name: `level ${i} digit cell model`,
      kind: 'analytic',
      points: analytic,
      group: `level ${i} (C >= ${T})`,
    });
    checks.push({
      what: `level ${i}: the digit cell model within the 99% binomial interval in every multiplicity bucket`,
      ok,
    });
  }
  return {
    name: 'bitwise-reach',
    title: `Bitwise: items reaching each level vs multiplicity (Zipf 1.0, ${c.name}; n = ${c.items})`,
    xLabel: 'multiplicity f (bucket [f, 2f))',
    yLabel: 'fraction of items whose count reached the level',
    series,
    params: { engine: o.engine, preset: c.name, levels: levelsText(c), distinct: r.items.length, buckets: order },
    command: `npx bloomforge experiment bitwise-reach --engine ${o.engine} --bitwise-preset ${c.name}`,
    checks,
  };
}

export const bitwiseExperiments: readonly ExperimentDef[] = [
  {
    name: 'bitwise-count-error',
    description: 'bitwise: count error vs Zipf skew, measured beside the digit cell model',
    simEngine: true,
    options: OPTIONS,
    run: countErrorExperiment,
  },
  {
    name: 'bitwise-fp',
    description: 'bitwise: false positives vs Zipf skew, measured beside the formulas',
    simEngine: true,
    options: OPTIONS,
    run: fpExperiment,
  },
  {
    name: 'bitwise-reach',
    description: 'bitwise: items reaching each level vs multiplicity, measured beside the model',
    simEngine: true,
    options: OPTIONS,
    run: reachExperiment,
  },
];
