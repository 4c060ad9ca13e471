/**
 * §6 of Dautrich & Ravishankar as the paper ran it: the standard and inferential BTBF and GBF,
 * the Simple Buffer and prior only, on the query-then-insert stream with $FP, $FN uniform in
 * [1, 10) per query (§6.1.1), 2^20 warm-up inserts and 2^22 query/insert pairs (§6.1.3), every
 * bits-per-item budget bpi, and for each bpi and each technique the k (1..30; bph 1..30 for the
 * buffer) with the least total penalty of THAT technique (§6.1.2, §6.2) — so the standard and the
 * inferential filter of one kind may use different k. Streams and windows: Table 4 (streams.ts).
 *
 * Parameters per (w, bpi, k): BTBF with bpt = max(3, k), m = ⌊w·bpi/bpt⌋ timers, the least
 * padding that checks at most k timers per insertion and the least block size that fits
 * (trials.ts btbfForBudget); GBF with k0 = k1 = k and m = w·bpi cells, the paper's single array
 * (or, with --gbf-layout partitioned, the hardware's banks); Simple Buffer with δ = ⌊w·bpi/bph⌋
 * (at most w) hashes of bph bits.
 *
 * One run computes every figure; the chart drawn is chosen by --figure: `penalty` (Fig. 11, the
 * total penalty of every technique), `ratio` (Figs. 9a/10a: inferential/standard penalty), `error`
 * (Figs. 9b/10b: posterior error, Eq. 35, of the chosen inferential filters), `k` (Fig. 8: the
 * chosen k and bph). Every figure's series are in the JSON (`params.figures`), and --from FILE
 * (a previous run's JSON, or several separated by commas, e.g. one per --condition) draws any
 * figure again without recomputing.
 */
import fs from 'node:fs';
import type { ExperimentDef, ExperimentOptions, ExperimentResult, Series } from '../../families/types.js';
import { UsageError } from '../../util/errors.js';
import { bufferLength } from '../../model/baselines.js';
import { makeStream, STREAMS, truthOf, type StreamKind } from './streams.js';
import {
  btbfForBudget,
  btbfTrial,
  bufferTrial,
  gbfTrial,
  itemHashes,
  posteriorError,
  priorCalibration,
  priorTrial,
  type TrialInput,
  type TrialResult,
} from './trials.js';

export type Figure = 'penalty' | 'ratio' | 'error' | 'k';
const FIGURES: readonly Figure[] = ['penalty', 'ratio', 'error', 'k'];

/** The technique of each result column. */
export const TECHNIQUES = [
  'BTBF standard',
  'BTBF inferential',
  'GBF standard',
  'GBF inferential',
  'Buffer standard',
  'Buffer inferential',
] as const;
export type Technique = (typeof TECHNIQUES)[number];

export interface Pick {
  /** The k (bph for the buffer) with the least total penalty; null when no k fits the budget. */
  k: number | null;
  penalty: number;
  /** Posterior error (Eq. 35) of that k (inferential techniques). */
  posteriorError: number | null;
  /** Total penalty per k = 1..kMax (null: no filter for that k). */
  byK: (number | null)[];
}

export interface BpiResult {
  bpi: number;
  picks: Record<Technique, Pick>;
}

export interface ConditionResult {
  condition: string;
  window: number;
  posNeg: number;
  paperPosNeg: number;
  /**
   * Prior only; `meanPrior` is the mean over the queries of the prior's P(I_x < w), and
   * `inWindow` the fraction of queries with I_x < w: equal when the prior is calibrated
   * (absent in results written before they were kept).
   */
  priorOnly: { penalty: number; posteriorError: number; meanPrior?: number; inWindow?: number };
  bpis: BpiResult[];
}

export interface DautrichOptions {
  kind: StreamKind;
  bpiFrom: number;
  bpiTo: number;
  kMax: number;
  scale: number;
  shrink: number;
  seed: number;
  /** Indices into Table 4's conditions of the stream. */
  conditions: number[];
  gbfLayout: 'shared' | 'partitioned';
  /** The IP-like stream's items in their generated order or shuffled (streams.ts; absent: 'stream'). */
  order?: 'stream' | 'shuffled';
  progress?: (done: number, total: number) => void;
}

/** What a run computes: every condition's picks, and how the stream was made. */
export interface DautrichRun {
  stream: StreamKind;
  options: Omit<DautrichOptions, 'progress'>;
  warmup: number;
  queries: number;
  distinctItems: number;
  distinct: string;
  results: ConditionResult[];
}

function pickOf(byK: (TrialResult | null)[], inferential: boolean): Pick {
  let best: { k: number; r: TrialResult; p: number } | null = null;
  byK.forEach((r, i) => {
    if (!r) return;
    const p = inferential ? r.inferential : r.standard;
    if (!best || p < best.p) best = { k: i + 1, r, p };
  });
  const b = best as { k: number; r: TrialResult; p: number } | null;
  return {
    k: b ? b.k : null,
    penalty: b ? b.p : NaN,
    posteriorError: b && inferential ? posteriorError(b.r) : null,
    byK: byK.map((r) => (r ? (inferential ? r.inferential : r.standard) : null)),
  };
}

export function runDautrich(o: DautrichOptions): DautrichRun {
  const warmup = Math.max(1, Math.round((2 ** 20 * o.scale) / o.shrink));
  const queries = Math.max(1, Math.round((2 ** 22 * o.scale) / o.shrink));
  const stream = makeStream(o.kind, { warmup, queries, shrink: o.shrink, seed: o.seed, order: o.order });
  const hashes = itemHashes(stream.distinct, o.seed, 2 * o.kMax + 1);
  const bpis: number[] = [];
  for (let b = o.bpiFrom; b <= o.bpiTo; b++) bpis.push(b);
  const total = o.conditions.length * bpis.length * 3 * o.kMax;
  let done = 0;
  const tick = (): void => o.progress?.(++done, total);
  const results = o.conditions.map((ci): ConditionResult => {
    const cond = stream.spec.conditions[ci]!;
    const w = stream.windows[ci]!;
    const { inWindow, posNeg } = truthOf(stream, w);
    const x: TrialInput = { stream, w, inWindow };
    const prior = priorTrial(x);
    return {
      condition: cond.name,
      window: w,
      posNeg,
      paperPosNeg: cond.paperPosNeg,
      priorOnly: {
        penalty: prior.inferential,
        posteriorError: posteriorError(prior),
        ...priorCalibration(x),
      },
      bpis: bpis.map((bpi): BpiResult => {
        const btbf: (TrialResult | null)[] = [];
        const gbf: (TrialResult | null)[] = [];
        const buffer: (TrialResult | null)[] = [];
        for (let k = 1; k <= o.kMax; k++) {
          const p = btbfForBudget(w, bpi, k);
          btbf.push(p ? btbfTrial(x, p, hashes) : null);
          tick();
          gbf.push(gbfTrial(x, { k0: k, k1: k, m: w * bpi, layout: o.gbfLayout }, hashes));
          tick();
          buffer.push(bufferTrial(x, bufferLength(w, bpi, k), k, hashes));
          tick();
        }
        return {
          bpi,
          picks: {
            'BTBF standard': pickOf(btbf, false),
            'BTBF inferential': pickOf(btbf, true),
            'GBF standard': pickOf(gbf, false),
            'GBF inferential': pickOf(gbf, true),
            'Buffer standard': pickOf(buffer, false),
            'Buffer inferential': pickOf(buffer, true),
          },
        };
      }),
    };
  });
  const { progress: _p, ...options } = o;
  void _p;
  return {
    stream: o.kind,
    options,
    warmup,
    queries,
    distinctItems: stream.distinct,
    distinct: stream.distinctNote,
    results,
  };
}

// ---- figures -------------------------------------------------------------------------------------

/** A condition in series names: its window (names stay plain text: no '>' to escape in SVG). */
const tag = (c: ConditionResult): string => `w=${c.window}`;

function points(c: ConditionResult, f: (b: BpiResult) => number | null): { x: number; y: number }[] {
  return c.bpis.flatMap((b) => {
    const y = f(b);
    return y === null || !Number.isFinite(y) ? [] : [{ x: b.bpi, y }];
  });
}

/** The series of every figure, from a run's results. */
export function figureSeries(results: readonly ConditionResult[]): Record<Figure, Series[]> {
  const out: Record<Figure, Series[]> = { penalty: [], ratio: [], error: [], k: [] };
  for (const c of results) {
    // One condition: plain names (the title says which); two: each name ends with its window.
    const t = results.length > 1 ? ` ${tag(c)}` : '';
    const lo = c.bpis[0]?.bpi ?? 0;
    const hi = c.bpis[c.bpis.length - 1]?.bpi ?? 0;
    out.penalty.push({
      name: `Prior only${t}`,
      kind: 'measured',
      points: [
        { x: lo, y: c.priorOnly.penalty },
        { x: hi, y: c.priorOnly.penalty },
      ],
    });
    for (const tech of [
      'BTBF standard',
      'BTBF inferential',
      'GBF standard',
      'GBF inferential',
      'Buffer inferential',
    ] as const)
      out.penalty.push({ name: `${tech}${t}`, kind: 'measured', points: points(c, (b) => b.picks[tech].penalty) });
    for (const kind of ['BTBF', 'GBF'] as const) {
      out.ratio.push({
        name: `${kind} inferential/standard${t}`,
        kind: 'measured',
        points: points(c, (b) => b.picks[`${kind} inferential`].penalty / b.picks[`${kind} standard`].penalty),
      });
      out.error.push({
        name: `${kind} inferential${t}`,
        kind: 'measured',
        points: points(c, (b) => b.picks[`${kind} inferential`].posteriorError),
      });
    }
    for (const tech of TECHNIQUES)
      out.k.push({
        // Short names: the chart's legend cuts labels near 20 characters.
        name: tech.startsWith('Buffer')
          ? `${tech.replace('standard', 'std').replace('inferential', 'inf')} (bph)${t}`
          : `${tech}${t}`,
        kind: 'measured',
        points: points(c, (b) => b.picks[tech].k),
      });
  }
  return out;
}

const FIGURE_TEXT: Record<Figure, { title: string; y: string; logY: boolean }> = {
  penalty: { title: 'Fig. 11: total penalty of every technique', y: 'total penalty', logY: true },
  ratio: { title: 'Figs. 9a/10a: penalty ratio inferential/standard', y: 'penalty ratio', logY: false },
  error: { title: 'Figs. 9b/10b: posterior error (Eq. 35)', y: 'posterior error', logY: false },
  k: { title: 'Fig. 8: the k (bph) with the least penalty', y: 'k or bph', logY: false },
};

// ---- the paper's statements, checked ------------------------------------------------------------

function mean(xs: number[]): number {
  return xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
}

/** The prior's mean P(I_x < w) against the fraction of queries in the window, when the run kept them. */
function calibration(c: ConditionResult): string {
  const { meanPrior, inWindow } = c.priorOnly;
  return meanPrior === undefined || inWindow === undefined
    ? ''
    : ` (mean prior P(I_x < w) ${meanPrior.toFixed(3)}, queries in the window ${inWindow.toFixed(3)})`;
}

/**
 * Statements of §6 about this stream, checked on the run. Table 4's ratios and the IP stream's
 * statements only at the paper's size (shrink 1: the generated IP stream is calibrated there);
 * the others at any size.
 */
export function checksOf(run: DautrichRun): { what: string; ok: boolean }[] {
  const checks: { what: string; ok: boolean }[] = [];
  const paperSize = run.options.shrink === 1;
  const shuffled = run.options.order === 'shuffled';
  for (const c of run.results) {
    if ((paperSize && !shuffled) || run.stream === 'uniform') {
      // 3%, or four standard errors of the measured ratio when the stream is short.
      const pos = (run.queries * c.posNeg) / (1 + c.posNeg);
      const tol = Math.max(0.03, 4 * Math.sqrt(1 / pos + 1 / (run.queries - pos)));
      checks.push({
        what: `${c.condition}: Pos/Neg ${c.posNeg.toFixed(3)} within ${(100 * tol).toFixed(0)}% of Table 4's ${c.paperPosNeg}`,
        ok: Math.abs(c.posNeg / c.paperPosNeg - 1) <= tol,
      });
    }
    // The prior is exact for the synthetic streams (§6.3, §6.4.1) and not for the bursty one
    // (§6.4.2: Assumption 2 violated): prior only, which answers from it alone, shows which.
    const priorError = c.priorOnly.posteriorError;
    checks.push(
      run.stream === 'ip' && !shuffled
        ? {
            what:
              `${c.condition}: p_x is not time-invariant (§6.4.2): prior-only posterior error ${priorError.toFixed(4)} ≥ 0.05` +
              calibration(c),
            ok: priorError >= 0.05,
          }
        : {
            what:
              `${c.condition}: the prior is exact (p_x time-invariant): prior-only posterior error ${priorError.toFixed(4)} < 0.03` +
              calibration(c),
            ok: priorError < 0.03,
          },
    );
    const ratios = c.bpis
      .map((b) => b.picks['BTBF inferential'].penalty / b.picks['BTBF standard'].penalty)
      .filter((r) => Number.isFinite(r));
    const errors = c.bpis.map((b) => b.picks['BTBF inferential'].posteriorError ?? 0);
    const gbfRatios = c.bpis.map((b) => b.picks['GBF inferential'].penalty / b.picks['GBF standard'].penalty);
    if (run.stream === 'uniform') {
      checks.push({
        what: `${c.condition}: inferential BTBF ≈ 80 % of standard (§6.3): mean penalty ratio ${mean(ratios).toFixed(3)} in [0.6, 0.95]`,
        ok: mean(ratios) >= 0.6 && mean(ratios) <= 0.95,
      });
      checks.push({
        what: `${c.condition}: posterior error of the inferential BTBF < 0.05 at every bpi (§6.3; max ${Math.max(...errors).toFixed(4)})`,
        ok: errors.every((e) => e < 0.05),
      });
      checks.push({
        what: `${c.condition}: the inferential GBF outperforms the standard GBF at every bpi (§6.3, Fig. 10a; max ratio ${Math.max(...gbfRatios).toFixed(3)})`,
        ok: gbfRatios.every((r) => r < 1),
      });
    }
    if (run.stream === 'powerlaw')
      checks.push({
        what: `${c.condition}: posterior error of the inferential BTBF < 0.035 at every bpi (§6.4.1; max ${Math.max(...errors).toFixed(4)})`,
        ok: errors.every((e) => e < 0.035),
      });
  }
  if (run.stream === 'ip' && paperSize) {
    // §6.4.2: "the inferential BTBF still generally reduces penalties for most trials" — and the
    // shuffled control must show it too if the bursts are what the generated stream's result
    // turns on.
    const trials = run.results.flatMap((c) =>
      c.bpis.map((b) => b.picks['BTBF inferential'].penalty <= b.picks['BTBF standard'].penalty),
    );
    const better = trials.filter(Boolean).length;
    checks.push({
      what: `the inferential BTBF's penalty ≤ the standard's in most trials (§6.4.2: ${better} of ${trials.length})`,
      ok: better > trials.length / 2,
    });
  }
  return checks;
}

// ---- the experiment definitions ------------------------------------------------------------------

function parseOptions(kind: StreamKind, o: ExperimentOptions): DautrichOptions {
  const int = (name: string, flag: string, min: number, max: number): number => {
    const n = Number(o.params[name]);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new UsageError(`--${flag} must be an integer in ${min}..${max}`);
    return n;
  };
  const m = /^(\d+)\.\.(\d+)$/.exec(o.params.bpi ?? '');
  if (!m || Number(m[1]) > Number(m[2]) || Number(m[1]) < 1 || Number(m[2]) > 64)
    throw new UsageError('--bpi must look like A..B with 1 <= A <= B <= 64');
  const shrink = int('shrink', 'shrink', 1, 1024);
  if (!Number.isInteger(Math.log2(shrink))) throw new UsageError('--shrink must be a power of two');
  const cond = o.params.condition ?? 'both';
  const conditions = cond === 'both' ? [0, 1] : cond === '1' ? [0] : cond === '2' ? [1] : null;
  if (!conditions) throw new UsageError('--condition must be both, 1 ([Pos≈Neg]) or 2 ([Pos>Neg])');
  const order = o.params.order ?? 'stream';
  if (order !== 'stream' && order !== 'shuffled') throw new UsageError('--order must be stream or shuffled');
  if (order === 'shuffled' && kind !== 'ip')
    throw new UsageError(`--order shuffled: only dautrich-ip (the ${kind} stream is already time-invariant)`);
  const layout = o.params.gbfLayout;
  if (layout !== 'shared' && layout !== 'partitioned')
    throw new UsageError('--gbf-layout must be shared or partitioned');
  return {
    kind,
    bpiFrom: Number(m[1]),
    bpiTo: Number(m[2]),
    kMax: int('kMax', 'k-max', 1, 30),
    scale: o.scale,
    shrink,
    seed: o.seed,
    conditions,
    gbfLayout: layout,
    order,
    progress: o.progress,
  };
}

function figureOf(o: ExperimentOptions): Figure {
  const f = o.params.figure ?? 'penalty';
  if (!(FIGURES as readonly string[]).includes(f))
    throw new UsageError(`--figure must be one of ${FIGURES.join(', ')}`);
  return f as Figure;
}

/** Runs from --from files (their `params.run`), merged: conditions in the files' order. */
function loadRuns(kind: StreamKind, files: string): DautrichRun {
  const runs = files.split(',').map((file) => {
    let r: ExperimentResult;
    try {
      r = JSON.parse(fs.readFileSync(file, 'utf8')) as ExperimentResult;
    } catch (e) {
      throw new UsageError(`--from: cannot read ${file}: ${(e as Error).message}`);
    }
    const run = r.params?.run as DautrichRun | undefined;
    if (!run || run.stream !== kind) throw new UsageError(`--from: ${file} is not a result of dautrich-${kind}`);
    return run;
  });
  const first = runs[0]!;
  for (const r of runs)
    for (const key of ['bpiFrom', 'bpiTo', 'kMax', 'scale', 'shrink', 'seed', 'gbfLayout', 'order'] as const)
      if ((r.options[key] ?? 'stream') !== (first.options[key] ?? 'stream'))
        throw new UsageError(
          `--from: the runs differ in ${key} (${String(first.options[key])}, ${String(r.options[key])})`,
        );
  return {
    ...first,
    options: { ...first.options, conditions: runs.flatMap((r) => r.options.conditions) },
    results: runs.flatMap((r) => r.results),
  };
}

function commandOf(name: string, run: DautrichRun, figure: Figure): string {
  const o = run.options;
  const cond = o.conditions.length === 2 ? '' : ` --condition ${o.conditions[0]! + 1}`;
  return (
    `npx bloomforge experiment ${name} --bpi ${o.bpiFrom}..${o.bpiTo} --k-max ${o.kMax} --scale ${o.scale} ` +
    `--shrink ${o.shrink} --seed ${o.seed}${cond} --gbf-layout ${o.gbfLayout}` +
    (o.order === 'shuffled' ? ' --order shuffled' : '') +
    ` --figure ${figure}`
  );
}

export function dautrichResult(name: string, run: DautrichRun, figure: Figure): ExperimentResult {
  const figures = figureSeries(run.results);
  const text = FIGURE_TEXT[figure];
  const spec = STREAMS[run.stream];
  const conds = run.results.map((c) => c.condition);
  const oneCondition = run.options.conditions.length === 1 ? `-c${run.options.conditions[0]! + 1}` : '';
  const shuffled = run.options.order === 'shuffled';
  const base = shuffled ? `${name}-shuffled` : name;
  return {
    name: figure === 'penalty' && !oneCondition ? base : `${base}-${figure}${oneCondition}`,
    title:
      `${text.title}, ${spec.title} stream${shuffled ? ' shuffled' : ''} (|U| = ${spec.universeLabel}), ` +
      conds.join(' and ') +
      (run.options.shrink > 1 ? ` at 1/${run.options.shrink} size` : ''),
    xLabel: 'bits per item (bpi)',
    yLabel: text.y,
    logY: text.logY,
    series: figures[figure],
    params: {
      figure,
      warmup: run.warmup,
      queries: run.queries,
      distinct: run.distinct,
      conditions: run.results.map((c) => ({
        condition: c.condition,
        window: c.window,
        posNeg: c.posNeg,
        paperPosNeg: c.paperPosNeg,
        priorOnly: c.priorOnly,
      })),
      figures,
      run,
    },
    command: commandOf(name, run, figure),
    checks: checksOf(run),
  };
}

const OPTIONS = [
  { name: 'bpi', flags: '--bpi <a..b>', description: 'dautrich-*: bits per item range', default: '1..24' },
  { name: 'kMax', flags: '--k-max <n>', description: 'dautrich-*: largest k (and bph) tried', default: '30' },
  {
    name: 'shrink',
    flags: '--shrink <s>',
    description: 'dautrich-*: the experiment at 1/s of its size: |U|, windows, IP pool, warm-up and queries',
    default: '1',
  },
  {
    name: 'condition',
    flags: '--condition <c>',
    description: 'dautrich-*: both, 1 ([Pos≈Neg]) or 2 ([Pos>Neg])',
    default: 'both',
  },
  {
    name: 'gbfLayout',
    flags: '--gbf-layout <l>',
    description: "dautrich-*: GBF cells as the paper's one array (shared) or the hardware's banks (partitioned)",
    default: 'shared',
  },
  {
    name: 'order',
    flags: '--order <o>',
    description:
      'dautrich-ip: the generated order (stream) or shuffled — same items and p_x, no bursts (the control run)',
    default: 'stream',
  },
  {
    name: 'figure',
    flags: '--figure <f>',
    description: 'dautrich-*: penalty (Fig. 11), ratio (9a/10a), error (9b/10b), k (Fig. 8)',
    default: 'penalty',
  },
  {
    name: 'from',
    flags: '--from <json>',
    description: "dautrich-*: draw from earlier runs' JSON (comma-separated) instead of running",
    default: '',
  },
] as const;

function def(kind: StreamKind): ExperimentDef {
  const name = `dautrich-${kind}`;
  const spec = STREAMS[kind];
  return {
    name,
    description:
      `Dautrich & Ravishankar §6, ${spec.title} stream: total penalty of the standard and inferential ` +
      `BTBF and GBF, the Simple Buffer and prior only per bpi (Figs. 8–11, Table 4)`,
    simEngine: false,
    options: OPTIONS,
    run(o) {
      const figure = figureOf(o);
      if (!o.params.from) return dautrichResult(name, runDautrich(parseOptions(kind, o)), figure);
      // From earlier runs: --condition picks the condition drawn.
      const run = loadRuns(kind, o.params.from);
      const want = o.params.condition ?? 'both';
      if (want === 'both') return dautrichResult(name, run, figure);
      const index = Number(want) - 1;
      const at = run.options.conditions.indexOf(index);
      if (at < 0) throw new UsageError(`--condition ${want}: not in the --from runs`);
      return dautrichResult(
        name,
        { ...run, options: { ...run.options, conditions: [index] }, results: [run.results[at]!] },
        figure,
      );
    },
  };
}

/** The cross-family experiments of the TBF paper (registered in src/experiments/index.ts). */
export const dautrichExperiments: readonly ExperimentDef[] = [def('uniform'), def('powerlaw'), def('ip')];
