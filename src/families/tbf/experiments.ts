/**
 * Fig. 9 of Dautrich & Ravishankar (shape): total penalty of the inferential BTBF over the
 * standard one per bits per item, and the posterior error (Eq. 35, 20 bins), on a uniform or Zipf
 * stream where every item is queried and then inserted, penalties uniform in [1, 10).
 * Parameters per bpi follow §6.1.2: bpt = max(3, k), m = w·bpi/bpt timers in k banks, the
 * smallest padding that checks at most k timers per insertion, the smallest block size B whose
 * TΩ = ⌈w/B⌉ + 1 + P fits bpt bits; k is the one with the least standard penalty.
 * Defaults are scaled down from the paper (|U| = w = 2^16, 2^22 queries) to run in seconds.
 */
import { decide, distinctPowerLaw, distinctUniform, posterior, type BtbfShape } from './analysis.js';
import { ExactWindow } from '../../model/window.js';
import { TbfModel } from './model.js';
import type { TbfParams } from './types.js';
import { Rng } from '../../util/rng.js';
import { UsageError } from '../../util/errors.js';
import type { ExperimentDef, ExperimentOptions, ExperimentResult } from '../types.js';

export interface BtbfPenaltyOptions {
  stream: 'uniform' | 'zipf';
  window: number;
  universe: number;
  bpiFrom: number;
  bpiTo: number;
  queries: number;
  seed: number;
  progress?: (done: number, total: number) => void;
}

/** BTBF parameters for a bits-per-item budget and k (null when nothing fits). */
export function btbfParams(w: number, bpi: number, k: number, seed: number): TbfParams | null {
  const bpt = Math.max(3, k);
  const m = Math.floor((w * bpi) / bpt);
  const perBank = Math.floor(m / k);
  if (perBank < 2) return null;
  const maxOmega = 2 ** bpt - 2;
  for (let B = 1; B <= w; B++) {
    const P = Math.max(0, Math.ceil((k * perBank) / (k * B)) - 1);
    if (Math.ceil(w / B) + 1 + P <= maxOmega) {
      return {
        k,
        timersPerBank: perBank,
        timerBits: bpt,
        window: w,
        blockSize: B,
        padding: P,
        keyBits: 64,
        seed,
        layout: 'partitioned',
      };
    }
  }
  return null;
}

interface Trial {
  standard: number;
  inferential: number;
  posteriorError: number;
}

function trial(p: TbfParams, o: BtbfPenaltyOptions): Trial {
  const model = new TbfModel(p);
  const shape: BtbfShape = {
    k: p.k,
    timersPerHash: p.timersPerBank,
    layout: 'partitioned',
    window: p.window,
    blockSize: p.blockSize,
  };
  const U = o.universe;
  const H = o.stream === 'zipf' ? distinctPowerLaw(U) : distinctUniform(U);
  let harmonicU = 0;
  if (o.stream === 'zipf') for (let i = 1; i <= U; i++) harmonicU += 1 / i;
  const cdf = new Float64Array(U);
  if (o.stream === 'zipf') {
    let acc = 0;
    for (let i = 0; i < U; i++) cdf[i] = acc += 1 / ((i + 1) * harmonicU);
  }
  const rng = new Rng(o.seed);
  const draw = (): number => {
    if (o.stream === 'uniform') return Math.floor(rng.float() * U);
    const u = rng.float() * cdf[U - 1]!;
    let lo = 0;
    let hi = U - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const keyOf = (x: number): bigint => (BigInt(x + 1) * 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
  const px = (x: number): number => (o.stream === 'uniform' ? 1 / U : 1 / ((x + 1) * harmonicU));
  const exact = new ExactWindow(p.window);
  for (let i = 0; i < 4 * p.window; i++) {
    const k = keyOf(draw());
    model.insert(k);
    exact.insert(k);
  }
  const bins = Array.from({ length: 20 }, () => ({ n: 0, yes: 0 }));
  let standard = 0;
  let inferential = 0;
  for (let i = 0; i < o.queries; i++) {
    const x = draw();
    const key = keyOf(x);
    const truth = exact.has(key);
    const q = model.testAndInsert(key);
    exact.insert(key);
    const post = posterior(shape, H, px(x), q);
    const b = bins[Math.min(19, Math.floor(post * 20))]!;
    b.n++;
    if (truth) b.yes++;
    const fp = 1 + 9 * rng.float();
    const fn = 1 + 9 * rng.float();
    const cost = (ans: boolean): number => (ans === truth ? 0 : ans ? fp : fn);
    standard += cost(q.hit);
    inferential += cost(decide(post, fp, fn));
  }
  const posteriorError =
    bins.reduce((s, b, l) => s + (b.n ? Math.abs(b.yes / b.n - (l + 0.5) / 20) * b.n : 0), 0) / o.queries;
  return { standard, inferential, posteriorError };
}

export function btbfPenaltyExperiment(o: BtbfPenaltyOptions): ExperimentResult {
  const ratio: { x: number; y: number }[] = [];
  const err: { x: number; y: number }[] = [];
  const chosen: Record<string, unknown> = {};
  const bpis: number[] = [];
  for (let b = o.bpiFrom; b <= o.bpiTo; b++) bpis.push(b);
  bpis.forEach((bpi, idx) => {
    let best: { p: TbfParams; t: Trial } | null = null;
    for (let k = 1; k <= 8; k++) {
      const p = btbfParams(o.window, bpi, k, o.seed);
      if (!p) continue;
      const t = trial(p, o);
      if (!best || t.standard < best.t.standard) best = { p, t };
    }
    if (!best) return;
    ratio.push({ x: bpi, y: best.t.inferential / best.t.standard });
    err.push({ x: bpi, y: best.t.posteriorError });
    chosen[`bpi${bpi}`] = {
      k: best.p.k,
      B: best.p.blockSize,
      P: best.p.padding,
      bpt: best.p.timerBits,
      timersPerBank: best.p.timersPerBank,
    };
    o.progress?.(idx + 1, bpis.length);
  });
  return {
    name: 'btbf-penalty',
    title: `Fig. 9 (shape): inferential / standard BTBF penalty, ${o.stream} stream, w=${o.window}, |U|=${o.universe}`,
    xLabel: 'bits per item',
    yLabel: 'penalty ratio / posterior error',
    series: [
      { name: 'penalty ratio inferential/standard', kind: 'measured', points: ratio },
      { name: 'posterior error (Eq. 35)', kind: 'measured', points: err },
    ],
    params: { ...o, progress: undefined, chosen },
    command: `npx bloomforge experiment btbf-penalty --stream ${o.stream} --window ${o.window} --universe ${o.universe} --bpi ${o.bpiFrom}..${o.bpiTo} --queries ${o.queries}`,
    checks: [
      { what: 'posterior error < 0.05 at every bpi', ok: err.every((p) => p.y < 0.05) },
      { what: 'inferential penalty <= standard at every bpi', ok: ratio.every((p) => p.y <= 1) },
    ],
  };
}

function penaltyOptions(o: ExperimentOptions): BtbfPenaltyOptions {
  const num = (name: string, min: number): number => {
    const n = Number(o.params[name]);
    if (!Number.isFinite(n) || n < min) throw new UsageError(`--${name} must be a number >= ${min}`);
    return n;
  };
  const stream = o.params.stream;
  if (stream !== 'uniform' && stream !== 'zipf') throw new UsageError('--stream must be uniform or zipf');
  const m = /^(\d+)\.\.(\d+)$/.exec(o.params.bpi ?? '');
  if (!m || Number(m[1]) > Number(m[2]) || Number(m[1]) < 1)
    throw new UsageError('--bpi must look like A..B with 1 <= A <= B');
  return {
    stream,
    window: num('window', 16),
    universe: num('universe', 2),
    bpiFrom: Number(m[1]),
    bpiTo: Number(m[2]),
    queries: num('queries', 100),
    seed: o.seed,
    progress: o.progress,
  };
}

/** The experiments `bloomforge experiment` and `report` run for this family. */
export const tbfExperiments: readonly ExperimentDef[] = [
  {
    name: 'btbf-penalty',
    description: 'Fig. 9 (shape): inferential / standard BTBF penalty and posterior error per bits per item',
    // Its §6.1.2 parameters (any bank size and block size) are not hardware configs; the RTL decision
    // unit is measured with `bloomforge simulate CFG --penalties random`.
    simEngine: false,
    options: [
      { name: 'stream', flags: '--stream <s>', description: 'btbf-penalty: uniform | zipf', default: 'uniform' },
      { name: 'window', flags: '--window <w>', description: 'btbf-penalty: window', default: '4096' },
      { name: 'universe', flags: '--universe <u>', description: 'btbf-penalty: |U|', default: '8192' },
      { name: 'bpi', flags: '--bpi <a..b>', description: 'btbf-penalty: bits per item range', default: '4..12' },
      { name: 'queries', flags: '--queries <n>', description: 'btbf-penalty: queries per trial', default: '20000' },
    ],
    run: (o) => btbfPenaltyExperiment(penaltyOptions(o)),
  },
];
