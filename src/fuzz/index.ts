/**
 * `bloomforge fuzz`: random configs of every family (each family's sampler spans its whole schema,
 * edges included), each either refused with one line naming a field or built and verified three
 * ways — model ≡ TS simulator (every response, memories after the drain) ≡ Verilator (and Icarus)
 * — on a random op stream with random back-pressure. A failure is shrunk (fewer ops, then smaller
 * config values and fewer optional fields, keeping the failure) and written as a regression case
 * (`test/fuzz-cases/*.json`) that the test suite replays.
 *
 * Shrinking runs on the model ≡ simulator check alone when that shows the failure (fast), else
 * on the full check with at most SHRINK_RTL_TRIES builds; the written case is checked once more
 * on every engine.
 */
import crypto from 'node:crypto';
import { resolveFilter } from '../config/load.js';
import { FAMILIES } from '../families/index.js';
import type { FilterFamily } from '../families/types.js';
import { ConfigError } from '../util/errors.js';
import { Rng } from '../util/rng.js';
import { verifyFilter } from '../verify/index.js';
import { driveAsync } from '../verify/stream.js';
import { type LaneFilter } from '../lanes/filter.js';
import { driveLanes, laneCosim } from '../verify/lanes.js';
import type { Comparison } from '../../sim/cosim/compare.js';

/** One verification run: a config as written and the stream's parameters. */
export interface FuzzRun {
  config: Record<string, unknown>;
  ops: number;
  seed: number;
  backpressure: number;
  idle: number;
}

/** A failure, shrunk, as the test suite replays it. */
export interface FuzzCase extends FuzzRun {
  /** The engines the failure was found with ('model', 'ts-compiled', 'verilator', 'icarus'). */
  engines: string[];
  /** What went wrong, one line. */
  failure: string;
  /** The campaign that found it. */
  foundBy: string;
}

export interface FuzzOptions {
  configs: number;
  ops: number;
  seed: number;
  /** Family ids (default: every registered family), drawn in turn. */
  families?: readonly string[];
  /**
   * N-lane designs (`bloomforge lanes`): each config gets a lane shape (lanes, shards, sometimes
   * merge) and its lane design is verified (default: one lane, the family's own design).
   */
  lanes?: boolean;
  /** Compare with Verilator (default true) and Icarus (default false). */
  verilator?: boolean;
  icarus?: boolean;
  /** Shrink failures (default true). */
  shrink?: boolean;
  onProgress?: (done: number, step: string) => void;
  /** Called after each config with its run and outcome (a failure's outcome is the one found, before shrinking). */
  onResult?: (index: number, run: FuzzRun, outcome: Outcome, seconds: number) => void;
}

export interface FuzzResult {
  configs: number;
  rejected: number;
  clean: number;
  failed: number;
  /** Rejections per field named. */
  rejectedBy: Record<string, number>;
  cases: FuzzCase[];
}

const SHRINK_RTL_TRIES = 24;
const REFUSAL = /^fuzz: field '([^']+)': [^\n]+$/;

/** The outcome of one run: refused (naming the field), ok, or a one-line failure. */
export type Outcome = { kind: 'refused'; field: string } | { kind: 'ok' } | { kind: 'failed'; failure: string };

function firstLine(e: unknown): string {
  return (e instanceof Error ? `${e.name}: ${e.message}` : String(e)).split('\n')[0]!;
}

/** A config resolved (`make`) and its design generated, or the outcome that stops the run. */
function build<T extends { design(): unknown }>(
  raw: Record<string, unknown>,
  make: (raw: Record<string, unknown>) => T,
): { filter: T } | Outcome {
  let filter: T;
  try {
    filter = make(raw);
  } catch (e) {
    if (e instanceof ConfigError) {
      const m = REFUSAL.exec(e.message);
      if (m) return { kind: 'refused', field: m[1]! };
      return { kind: 'failed', failure: `refused without naming a field in one line: ${firstLine(e)}` };
    }
    return { kind: 'failed', failure: `config crashed: ${firstLine(e)}` };
  }
  try {
    filter.design();
  } catch (e) {
    return { kind: 'failed', failure: `generator crashed: ${firstLine(e)}` };
  }
  return { filter };
}

/** The first port mismatch of two engines run cycle by cycle, as a failure. */
function cycleMismatch(c: Comparison): Outcome {
  const m = c.mismatches[0]!;
  return {
    kind: 'failed',
    failure: `${c.engines[0]} vs ${c.engines[1]}: cycle ${m.cycle}, ${m.port}: 0x${m.a.toString(16)} vs 0x${m.b.toString(16)}`,
  };
}

/**
 * Runs one config and stream. `rtl` false: model ≡ simulator and memories only.
 */
export async function runOnce(run: FuzzRun, rtl: { verilator: boolean; icarus: boolean } | false): Promise<Outcome> {
  const r = build(run.config, (raw) => resolveFilter(raw, 'fuzz'));
  if (!('filter' in r)) return r;
  if (r.filter.kind === 'lanes') return runLanes(r.filter, run, rtl !== false && rtl.verilator);
  const f = r.filter;
  const stream = { ops: run.ops, seed: run.seed, backpressure: run.backpressure, idle: run.idle };
  try {
    if (rtl === false) {
      const d = await driveAsync(f, stream);
      if (!d.finished) return { kind: 'failed', failure: `did not finish: ${d.stopReason}` };
      const first = d.mismatches[0];
      if (first)
        return {
          kind: 'failed',
          failure: `model vs simulator: op ${first.op} (${first.kind}): expected ${first.expected}, got ${first.got}`,
        };
      const mem = d.model.compareMemories((n, a) => d.sim.readMemory(n, a));
      if (mem.count > 0) return { kind: 'failed', failure: `memories vs model: ${mem.mismatches[0]}` };
      return { kind: 'ok' };
    }
    const v = await verifyFilter(f, { ...stream, verilator: rtl.verilator, icarus: rtl.icarus });
    if (v.ok) return { kind: 'ok' };
    const d = v.drive;
    if (!d.finished) return { kind: 'failed', failure: `did not finish: ${d.stopReason}` };
    const first = d.mismatches[0];
    if (first)
      return {
        kind: 'failed',
        failure: `model vs simulator: op ${first.op} (${first.kind}): expected ${first.expected}, got ${first.got}`,
      };
    if (v.memory.count > 0) return { kind: 'failed', failure: `memories vs model: ${v.memory.mismatches[0]}` };
    return cycleMismatch(v.rtl.find((x) => x.count > 0)!);
  } catch (e) {
    return { kind: 'failed', failure: `run crashed: ${firstLine(e)}` };
  }
}

/**
 * One run of a lane config (`lanes`, `shards` or `merge` in it, resolved): its N-lane design driven
 * with the stream's ops spread over the lanes and checked against the sharded model (every
 * answer on the linear order, each lane's order, the memories after the drain), and with
 * `verilator` the simulator against Verilator on every port in every cycle.
 */
async function runLanes(lf: LaneFilter, run: FuzzRun, verilator: boolean): Promise<Outcome> {
  try {
    const d = driveLanes(lf, {
      opsPerLane: Math.max(1, Math.ceil(run.ops / lf.lanes)),
      seed: run.seed,
      backpressure: run.backpressure,
      idle: run.idle,
      record: verilator,
    });
    if (!d.finished) return { kind: 'failed', failure: `did not finish (${d.responses} of ${d.ops} answered)` };
    if (d.mismatches.length) return { kind: 'failed', failure: `lanes vs model: ${d.mismatches[0]}` };
    if (d.responses !== d.ops) return { kind: 'failed', failure: `${d.responses} responses to ${d.ops} ops` };
    if (d.memory && d.memory.count > 0)
      return { kind: 'failed', failure: `memories vs model: ${d.memory.mismatches[0]}` };
    if (verilator) {
      const c = await laneCosim(lf, d);
      if (c.mismatches.length) return cycleMismatch(c);
    }
    return { kind: 'ok' };
  } catch (e) {
    return { kind: 'failed', failure: `run crashed: ${firstLine(e)}` };
  }
}

/** Smaller candidates for one config value (integers toward 1 and 0, true → false, strings kept). */
function smaller(v: unknown): unknown[] {
  if (typeof v === 'boolean') return v ? [false] : [];
  if (typeof v !== 'number' || !Number.isFinite(v)) return [];
  if (!Number.isInteger(v)) return v > 0 ? [0, v / 2] : [];
  const out = new Set<number>();
  for (const c of [0, 1, 2, Math.floor(v / 2), v - 1]) if (c >= 0 && c < v) out.add(c);
  return [...out].sort((a, b) => a - b);
}

/** Fields a shrink leaves alone: what the config is, and its name. */
const FIXED = new Set(['filter', 'name']);

/**
 * Shrinks a failing run: the fewest ops (halving, then bisecting) that still fail, then each
 * config field toward small values or away (optional fields), keeping every step that still
 * fails. `fails` decides; `budget` bounds its calls.
 */
export async function shrinkRun(
  run: FuzzRun,
  fails: (r: FuzzRun) => Promise<boolean>,
  budget: number,
): Promise<FuzzRun> {
  let tries = 0;
  const check = async (r: FuzzRun): Promise<boolean> => {
    if (tries >= budget) return false;
    tries++;
    return fails(r);
  };
  let best = run;
  // Ops: halve while it fails, then bisect between the last passing and failing counts.
  let lo = 0;
  while (best.ops > 1) {
    const half = Math.floor(best.ops / 2);
    if (await check({ ...best, ops: half })) best = { ...best, ops: half };
    else {
      lo = half;
      break;
    }
  }
  let hi = best.ops;
  while (hi - lo > 1 && tries < budget) {
    const mid = Math.floor((lo + hi) / 2);
    if (await check({ ...best, ops: mid })) hi = mid;
    else lo = mid;
  }
  best = { ...best, ops: hi };
  // Config: one field at a time, smallest candidate first; repeat while something shrank.
  for (let changed = true; changed && tries < budget;) {
    changed = false;
    for (const key of Object.keys(best.config)) {
      if (FIXED.has(key)) continue;
      const candidates: (Record<string, unknown> | null)[] = [
        // Without the field (an optional field takes its default; a required one is refused).
        (() => {
          const c = { ...best.config };
          delete c[key];
          return c;
        })(),
        ...smaller(best.config[key]).map((v) => ({ ...best.config, [key]: v })),
      ];
      for (const cfg of candidates) {
        if (!cfg) continue;
        const r = { ...best, config: cfg };
        if (await check(r)) {
          best = r;
          changed = true;
          break;
        }
      }
    }
  }
  return best;
}

function caseName(c: FuzzRun): string {
  const h = crypto.createHash('sha256').update(JSON.stringify(c)).digest('hex').slice(0, 10);
  return `${String(c.config.filter)}-${h}`;
}

/** The file name a case is written under (`<filter>-<hash>.json`) and its text. */
export function caseFile(c: FuzzCase): { name: string; text: string } {
  const name = caseName(c);
  const text = `${JSON.stringify({ ...c, config: { ...c.config, name: `fz_${name.replace(/-/g, '_')}` } }, null, 2)}\n`;
  return { name: `${name}.json`, text };
}

/** The campaign. */
export async function fuzz(o: FuzzOptions): Promise<FuzzResult> {
  // With lanes, the families that have them (a family without is refused naming lanes).
  const ids = o.families ?? FAMILIES.filter((f) => !o.lanes || f.lanes.kind === 'sharded').map((f) => f.id);
  const families = ids.map((id) => {
    const fam = FAMILIES.find((f) => f.id === id);
    if (!fam) throw new Error(`fuzz: unknown family '${id}'`);
    return fam;
  });
  const rtl = { verilator: o.verilator ?? true, icarus: o.icarus ?? false };
  // (A lane design runs on the model, the TS simulator and Verilator: Icarus is for one lane.)
  const engines = [
    'model',
    'ts-compiled',
    ...(rtl.verilator ? ['verilator'] : []),
    ...(rtl.icarus && !o.lanes ? ['icarus'] : []),
  ];
  const rngs = new Map<FilterFamily, Rng>(families.map((f, i) => [f, new Rng(o.seed * 7919 + i)]));
  const streams = new Rng(o.seed ^ 0x5eed);
  // The key mix is common to every family: a config names none (the default for its key width),
  // 'none' or 'spn', a third each (own stream, so the samplers draw the same configs as before).
  const mixes = new Rng(o.seed ^ 0x6d1c);
  // Lane shapes (own stream too): lanes 1, 2, 4 or 8; shards lanes times 1, 2 or 4, or now and
  // then a shape the config refuses (not a power of two, fewer than the lanes); merge for a
  // quarter of the configs with two lanes or more; three in four on ECP5, whose block RAMs hold
  // more shards.
  const shapes = new Rng(o.seed ^ 0x1a4e);
  const result: FuzzResult = { configs: 0, rejected: 0, clean: 0, failed: 0, rejectedBy: {}, cases: [] };
  const BP = [0, 0.3, 0.9, 0.99];
  for (let i = 0; i < o.configs; i++) {
    const family = families[i % families.length]!;
    const config: Record<string, unknown> = { name: `fz${i}`, ...family.sample(rngs.get(family)!) };
    const mixPick = mixes.float();
    if (mixPick >= 1 / 3) config.keyMix = mixPick < 2 / 3 ? 'none' : 'spn';
    if (o.lanes) {
      const lanes = [1, 2, 4, 8][Math.floor(shapes.float() * 4)]!;
      const odd = shapes.float();
      config.lanes = lanes;
      config.shards = odd < 0.05 ? lanes * 3 : odd < 0.1 ? lanes / 2 : lanes * 2 ** Math.floor(shapes.float() * 3);
      if (lanes > 1 && shapes.float() < 0.25) config.merge = true;
      if (shapes.float() < 0.75) config.target = 'ecp5';
    }
    const pick = streams.float();
    const run: FuzzRun = {
      config,
      ops: o.ops,
      seed: o.seed * 100_003 + i,
      backpressure: pick < 0.8 ? BP[Math.floor(streams.float() * BP.length)]! : Math.round(streams.float() * 100) / 100,
      idle: Math.round(streams.float() * 30) / 100,
    };
    o.onProgress?.(i, `${family.id}`);
    result.configs++;
    const t0 = performance.now();
    const out = await runOnce(run, rtl);
    o.onResult?.(i, run, out, (performance.now() - t0) / 1000);
    if (out.kind === 'refused') {
      result.rejected++;
      result.rejectedBy[out.field] = (result.rejectedBy[out.field] ?? 0) + 1;
      continue;
    }
    if (out.kind === 'ok') {
      result.clean++;
      continue;
    }
    result.failed++;
    let shrunk = run;
    if (o.shrink ?? true) {
      const fast = (await runOnce(run, false)).kind === 'failed';
      const fails = async (r: FuzzRun): Promise<boolean> => (await runOnce(r, fast ? false : rtl)).kind === 'failed';
      shrunk = await shrinkRun(run, fails, fast ? 400 : SHRINK_RTL_TRIES);
    }
    const last = await runOnce(shrunk, rtl);
    const failure = last.kind === 'failed' ? last.failure : out.failure;
    if (last.kind !== 'failed') shrunk = run;
    result.cases.push({
      ...shrunk,
      engines,
      failure,
      foundBy: `bloomforge fuzz --configs ${o.configs} --ops ${o.ops} --seed ${o.seed} --families ${ids.join(',')}${o.lanes ? ' --lanes' : ''}`,
    });
  }
  o.onProgress?.(o.configs, 'done');
  return result;
}

/** The summary line. */
export function summaryLine(r: FuzzResult): string {
  return `fuzz: ${r.configs} configs, ${r.rejected} rejected, ${r.clean} clean, ${r.failed} failed`;
}
