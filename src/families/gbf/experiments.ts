/**
 * The GBF's own experiments, measured beside the analytics (on the model, or with --engine sim on
 * the RTL pipeline in the compiled simulator, one request at a time):
 *
 * - `gbf-decay`: P(Pos | I_x = i), the probability that a key inserted i inserts ago is still
 *   reported, on a stream of distinct keys, against Eq. 32 with every cell as x left it
 *   (analysis.ts hitProbability), and the false-positive rate of never-inserted keys against
 *   (k0/K)^k0 (k1/K)^k1.
 * - `gbf-posterior`: the inferential GBF's decision unit (§5.3, Eq. 34 in the ROM) on a uniform
 *   query-then-insert stream with $FP, $FN uniform in [1, 10) (§6.1.1): the posterior of every
 *   query (the ROM word at (class, c0, c1)) binned against the fraction really in the window
 *   (Eq. 35), and the total penalty of the decision unit's answers against the standard ones.
 */
import { CompiledSim } from '../../../sim/compiled.js';
import { proportionWithin } from '../../analysis/stats.js';
import { Rng } from '../../util/rng.js';
import type { ExperimentDef, ExperimentOptions, ExperimentResult } from '../types.js';
import { freshHitProbability, hitProbability } from './analysis.js';
import { deriveGbf } from './config.js';
import { gbfDecisionLayout, gbfDecisionTable, gbfRatioOf, gbfRomAddress, gbfShape } from './decision.js';
import { GbfModel } from './model.js';
import { GBF_OP } from './params.js';
import { buildGbf } from './rtl.js';
import type { GbfDerived } from './types.js';

interface Answer {
  hit: boolean;
  c0: number;
  c1: number;
  decision: boolean;
}

interface Engine {
  insert(key: bigint): void;
  query(key: bigint, cls?: number, ratio?: number): Answer;
}

function modelEngine(c: GbfDerived): Engine {
  const m = new GbfModel(c);
  const table = c.decision ? gbfDecisionTable(c) : null;
  const L = c.decision ? gbfDecisionLayout(c) : null;
  return {
    insert: (k) => m.insert(k),
    query: (k, cls = 0, ratio = 0) => {
      const q = m.query(k);
      const word = table ? table[gbfRomAddress(L!, cls, q.c0, q.c1)]! : 0;
      return { hit: q.hit, c0: q.c0, c1: q.c1, decision: table ? word >= ratio : false };
    },
  };
}

function simEngine(c: GbfDerived): Engine {
  const sim = new CompiledSim(buildGbf(c));
  const L = c.decision ? gbfDecisionLayout(c) : null;
  sim.poke('out_ready', 1);
  while (sim.peek('in_ready') === 0n) sim.step();
  const op = (code: number, key: bigint, cls: number, ratio: number): Answer => {
    sim.poke('in_valid', 1);
    sim.poke('in_op', code);
    sim.poke('in_key', key);
    if (L) {
      sim.poke('in_ratio', ratio);
      if (L.classBits > 0) sim.poke('in_class', cls);
    }
    while (sim.peek('in_ready') === 0n) sim.step();
    sim.step();
    sim.poke('in_valid', 0);
    while (sim.peek('out_valid') === 0n) sim.step();
    const a = {
      hit: sim.peek('out_hit') === 1n,
      c0: Number(sim.peek('out_c0')),
      c1: Number(sim.peek('out_c1')),
      decision: L ? sim.peek('out_decision') === 1n : false,
    };
    sim.step();
    return a;
  };
  return {
    insert: (k) => void op(GBF_OP.insert, k, 0, 0),
    query: (k, cls = 0, ratio = 0) => op(GBF_OP.query, k, cls, ratio),
  };
}

function engineFor(o: ExperimentOptions, c: GbfDerived): Engine {
  return o.engine === 'sim' ? simEngine(c) : modelEngine(c);
}

/** Distinct 64-bit keys (an odd multiplier spreads a counter). */
function distinctKeys(seed: number): () => bigint {
  let n = BigInt(seed) << 40n;
  return () => (++n * 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
}

/** |measured − p| within four binomial standard deviations of n draws (and a little slack). */
const within4 = (hits: number, n: number, p: number): boolean => proportionWithin(hits, n, p, 4, 2 / n);

export function decayExperiment(o: ExperimentOptions): ExperimentResult {
  const c = deriveGbf({
    name: 'gbf_decay',
    filter: 'gbf',
    k0: 4,
    k1: 4,
    cellsPerBank: 512,
    window: 1024,
    keyBits: 64,
    seed: 3,
  });
  const s = gbfShape(c);
  const e = engineFor(o, c);
  const next = distinctKeys(o.seed);
  const fresh = distinctKeys(o.seed + 1000);
  const maxAge = 4 * c.window;
  const step = 64;
  const ages = Array.from({ length: maxAge / step }, (_, i) => i * step);
  const hits = new Array<number>(ages.length).fill(0);
  let tries = 0;
  let fpHits = 0;
  let fpTries = 0;
  const history: bigint[] = [];
  for (let i = 0; i < 2 * maxAge; i++) {
    const k = next();
    e.insert(k);
    history.push(k);
  }
  const probes = Math.max(8, Math.round((o.engine === 'sim' ? 12 : 60) * o.scale));
  for (let p = 0; p < probes; p++) {
    for (let i = 0; i < 97; i++) {
      const k = next();
      e.insert(k);
      history.push(k);
    }
    ages.forEach((a, i) => {
      if (e.query(history[history.length - 1 - a]!).hit) hits[i]!++;
    });
    tries++;
    for (let i = 0; i < 256; i++) {
      fpTries++;
      if (e.query(fresh() ^ (1n << 63n)).hit) fpHits++;
    }
    if (history.length > 4 * maxAge) history.splice(0, history.length - maxAge - 1);
    o.progress?.(p + 1, probes);
  }
  const analytic = ages.map((a) => hitProbability(s, a));
  const fp = freshHitProbability(s);
  // Probes of one age at different moments are nearly independent (97 inserts apart).
  const bad = ages.filter((_, i) => !within4(hits[i]!, tries, analytic[i]!)).length;
  return {
    name: 'gbf-decay',
    title: `GBF (k0=${c.k0}, k1=${c.k1}, ${c.k0 + c.k1} banks of ${c.cellsPerBank} cells): P(Pos) vs inserts since the key's insert`,
    xLabel: 'inserts since the key was inserted (I_x)',
    yLabel: 'P(reported present)',
    series: [
      { name: 'measured', kind: 'measured', points: ages.map((x, i) => ({ x, y: hits[i]! / tries })) },
      {
        name: 'Eq. 32, every cell as x left it',
        kind: 'analytic',
        points: ages.map((x, i) => ({ x, y: analytic[i]! })),
      },
      {
        name: 'never-inserted key, measured',
        kind: 'measured',
        points: [0, maxAge].map((x) => ({ x, y: fpHits / fpTries })),
      },
      { name: '(k0/K)^k0 (k1/K)^k1', kind: 'analytic', points: [0, maxAge].map((x) => ({ x, y: fp })) },
    ],
    params: { engine: o.engine, config: c, probes, fpTries },
    command: `npx bloomforge experiment gbf-decay --engine ${o.engine} --scale ${o.scale} --seed ${o.seed}`,
    checks: [
      {
        what: `P(Pos | I_x) within 4 binomial standard deviations of Eq. 32 at ${ages.length - bad} of ${ages.length} ages (at least 97%)`,
        ok: bad <= Math.floor(0.03 * ages.length),
      },
      {
        what: `never-inserted keys: measured fp ${(fpHits / fpTries).toExponential(3)} within 4σ of ${fp.toExponential(3)}`,
        ok: within4(fpHits, fpTries, fp),
      },
    ],
  };
}

/** The inferential GBF of the posterior experiment (the shape of the HX8K decision preset). */
export function posteriorConfig(universe: number): GbfDerived {
  return deriveGbf({
    name: 'gbf_posterior',
    filter: 'gbf',
    k0: 4,
    k1: 4,
    cellsPerBank: 2048,
    window: 4096,
    keyBits: 64,
    seed: 5,
    decision: { classes: [{ px: 1 / universe, name: 'uniform' }], posteriorBits: 15 },
  });
}

export function posteriorExperiment(o: ExperimentOptions): ExperimentResult {
  const universe = 6000;
  const c = posteriorConfig(universe);
  const e = engineFor(o, c);
  const rng = new Rng(o.seed);
  const pb = c.decision!.posteriorBits;
  const table = gbfDecisionTable(c);
  const L = gbfDecisionLayout(c);
  const keyOf = (x: number): bigint => (BigInt(x + 1) * 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
  const last = new Float64Array(universe).fill(-Infinity);
  let n = 0;
  const insert = (x: number): void => {
    e.insert(keyOf(x));
    last[x] = n++;
  };
  for (let i = 0; i < 4 * c.window; i++) insert(Math.floor(rng.float() * universe));
  const queries = Math.max(2000, Math.round((o.engine === 'sim' ? 4000 : 40_000) * o.scale));
  const bins = Array.from({ length: 20 }, () => ({ n: 0, yes: 0 }));
  let standard = 0;
  let inferential = 0;
  let pos = 0;
  for (let q = 0; q < queries; q++) {
    const x = Math.floor(rng.float() * universe);
    const truth = n - 1 - last[x]! < c.window;
    if (truth) pos++;
    const fp = 1 + 9 * rng.float();
    const fn = 1 + 9 * rng.float();
    const a = e.query(keyOf(x), 0, gbfRatioOf(fp, fn, pb));
    const p = table[gbfRomAddress(L, 0, a.c0, a.c1)]! / 2 ** pb;
    const b = bins[Math.min(19, Math.floor(p * 20))]!;
    b.n++;
    if (truth) b.yes++;
    const cost = (ans: boolean): number => (ans === truth ? 0 : ans ? fp : fn);
    standard += cost(a.hit);
    inferential += cost(a.decision);
    insert(x);
    if (q % 500 === 0) o.progress?.(q, queries);
  }
  const error = bins.reduce((s, b, l) => s + (b.n ? Math.abs(b.yes / b.n - (l + 0.5) / 20) * b.n : 0), 0) / queries;
  const used = bins.map((b, l) => ({ b, l })).filter(({ b }) => b.n >= 20);
  return {
    name: 'gbf-posterior',
    title: `Inferential GBF decision unit (k0=${c.k0}, k1=${c.k1}, m=${c.m}, w=${c.window}, |U|=${universe}): posterior vs fraction in the window`,
    xLabel: 'posterior P(I_x < w | R_x) (bin centre)',
    yLabel: 'fraction of queries with I_x < w',
    series: [
      { name: 'measured', kind: 'measured', points: used.map(({ b, l }) => ({ x: (l + 0.5) / 20, y: b.yes / b.n })) },
      {
        name: 'calibrated (y = x)',
        kind: 'analytic',
        points: used.map(({ l }) => ({ x: (l + 0.5) / 20, y: (l + 0.5) / 20 })),
      },
    ],
    params: {
      engine: o.engine,
      config: c,
      queries,
      posNeg: pos / (queries - pos),
      standard,
      inferential,
      posteriorError: error,
    },
    command: `npx bloomforge experiment gbf-posterior --engine ${o.engine} --scale ${o.scale} --seed ${o.seed}`,
    checks: [
      { what: `posterior error (Eq. 35) ${error.toFixed(4)} < 0.05`, ok: error < 0.05 },
      {
        what: `total penalty of the decision unit ${inferential.toFixed(0)} below the standard answer's ${standard.toFixed(0)} (§2.6)`,
        ok: inferential < standard,
      },
    ],
  };
}

/** The experiments `bloomforge experiment` and `report` run for this family. */
export const gbfExperiments: readonly ExperimentDef[] = [
  {
    name: 'gbf-decay',
    description: 'GBF: probability that a key is still reported vs its age, against Eq. 32; fp of never-inserted keys',
    simEngine: true,
    run: decayExperiment,
  },
  {
    name: 'gbf-posterior',
    description:
      "Inferential GBF: the decision unit's posterior (Eq. 34 ROM) calibrated against the window, and its penalty",
    simEngine: true,
    run: posteriorExperiment,
  },
];
