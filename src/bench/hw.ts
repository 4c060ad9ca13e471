/**
 * The hardware-vs-software bench of one configured filter, for any family: sustained ops/cycle
 * in the TS simulator (one request every cycle, out_ready always high, across the family's aging
 * events), fmax from synthesis, TS simulator vs Verilator cycles/s, and the family's software
 * filter's ops/s on one key stream.
 */
import type { Filter } from '../families/filter.js';
import type { SoftwareOp } from '../families/types.js';
import { synthesize } from '../synth/index.js';
import { Rng } from '../util/rng.js';
import { simBench } from './sim.js';
import { drive, keysOf } from '../verify/stream.js';
import { uniformWorkload } from '../model/workloads.js';

export interface Sustained {
  ops: number;
  cycles: number;
  opsPerCycle: number;
  /** What the aging events are called ('shifts', 'wraps') and how many the run crossed. */
  agingName: string | null;
  agingEvents: number;
  stalls: number;
}

/** Sustained ops/cycle: one request every cycle, out_ready always high, across the aging run. */
export function sustainedOpsPerCycle(f: Filter, opsAtLeast = 20_000): Sustained {
  const a = f.aging();
  const ops = Math.max(opsAtLeast, a?.run.ops ?? 0);
  const r = drive(f, { ops, seed: 1, mix: a?.run.mix ?? { query: 1, insert: 2, testAndInsert: 1 } });
  if (!r.finished) throw new Error(`bench: ${f.name}: the run did not finish: ${r.stopReason}`);
  const cycles = r.lastAccept - r.firstAccept + 1;
  return {
    ops: r.ops,
    cycles,
    opsPerCycle: r.ops / cycles,
    agingName: a?.name ?? null,
    agingEvents: r.agingEvents,
    stalls: r.stallCycles,
  };
}

export interface SoftwareSpeed {
  /** 'compiled': the config-specialised software filter; 'reference': the reference model. */
  engine: 'compiled' | 'reference';
  /** ops/s; null where the filter has no such op. */
  insert: number | null;
  query: number | null;
  testAndInsert: number | null;
}

/**
 * The family's software filter on one uniform key stream, ops/s per op kind: a fresh filter per
 * kind, a warm-up, then every key once (queries on a filter that holds the stream).
 */
export function softwareOpsPerSec(f: Filter): SoftwareSpeed {
  const sw = f.software();
  const n = sw.keys;
  const w = uniformWorkload(f.config.keyBits, 4 * keysOf(f));
  const rng = new Rng(5);
  const keys = Array.from({ length: n }, () => w.nextKey(rng));
  const time = (op: SoftwareOp): number | null => {
    const fns = sw.fresh(keys);
    const run = fns[op];
    if (!run) return null;
    if (op === 'query' && fns.insert) for (let i = 0; i < n; i++) fns.insert(i);
    for (let i = 0; i < Math.min(n, 100_000); i++) run(i);
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) run(i);
    return n / (Number(process.hrtime.bigint() - t0) / 1e9);
  };
  return { engine: sw.engine, insert: time('insert'), query: time('query'), testAndInsert: time('testAndInsert') };
}

export interface BenchResult {
  config: string;
  family: string;
  target: string;
  opsPerCycle: number;
  agingName: string | null;
  agingEvents: number;
  stallCycles: number;
  fmaxMHz: number | null;
  hwMopsPerSec: number | null;
  simCyclesPerSec: number;
  verilatorCyclesPerSec: number;
  simOverVerilator: number;
  swOpsPerSec: SoftwareSpeed;
  hwOverSw: number | null;
}

/**
 * `o.synth` false: no synthesis (no fmax, no hardware ops/s); `o.ops`: the sustained run's ops at
 * least (default 20 000; the family's aging run when longer).
 */
export async function benchFilter(
  f: Filter,
  seeds: number,
  cycles: number,
  onProgress?: (done: number, total: number, step: string) => void,
  o: { synth?: boolean; ops?: number } = {},
): Promise<BenchResult> {
  const d = f.design();
  onProgress?.(0, 4, 'ops/cycle');
  const sus = sustainedOpsPerCycle(f, o.ops);
  onProgress?.(1, 4, 'synthesis');
  const synth = o.synth === false ? { fmaxMHz: null } : await synthesize(d, { target: f.config.target, seeds });
  onProgress?.(2, 4, 'TS simulator vs Verilator');
  const sim = await simBench(d, cycles);
  onProgress?.(3, 4, 'software filter');
  const sw = softwareOpsPerSec(f);
  onProgress?.(4, 4, 'done');
  const hw = synth.fmaxMHz === null ? null : synth.fmaxMHz * sus.opsPerCycle;
  return {
    config: f.name,
    family: f.family.id,
    target: f.config.target,
    opsPerCycle: sus.opsPerCycle,
    agingName: sus.agingName,
    agingEvents: sus.agingEvents,
    stallCycles: sus.stalls,
    fmaxMHz: synth.fmaxMHz,
    hwMopsPerSec: hw,
    simCyclesPerSec: sim.tsCyclesPerSec,
    verilatorCyclesPerSec: sim.verilatorCyclesPerSec,
    simOverVerilator: sim.tsCyclesPerSec / sim.verilatorCyclesPerSec,
    swOpsPerSec: sw,
    hwOverSw: hw === null || sw.testAndInsert === null ? null : (hw * 1e6) / sw.testAndInsert,
  };
}

const M = (x: number | null): string => (x === null ? 'n/a' : (x / 1e6).toFixed(2));

export function formatBenchTable(rows: BenchResult[]): string {
  const head =
    '| config | target | ops/cycle | fmax MHz | HW Mops/s | TS sim Mcycles/s | Verilator Mcycles/s | TS/Verilator | SW testAndInsert Mops/s | SW insert | SW query | HW/SW |';
  const sep = '|---|---|---|---|---|---|---|---|---|---|---|---|';
  const lines = rows.map(
    (r) =>
      `| ${r.config} | ${r.target} | ${r.opsPerCycle.toFixed(3)} | ${r.fmaxMHz === null ? 'n/a' : r.fmaxMHz.toFixed(1)} | ` +
      `${r.hwMopsPerSec === null ? 'n/a' : r.hwMopsPerSec.toFixed(1)} | ${M(r.simCyclesPerSec)} | ${M(r.verilatorCyclesPerSec)} | ` +
      `${r.simOverVerilator.toFixed(2)} | ${M(r.swOpsPerSec.testAndInsert)} | ${M(r.swOpsPerSec.insert)} | ${M(r.swOpsPerSec.query)} | ` +
      `${r.hwOverSw === null ? 'n/a' : r.hwOverSw.toFixed(0)} |`,
  );
  return [head, sep, ...lines].join('\n');
}
