/** CLI commands for the hardware numbers: synth (resources, fmax) and bench (throughput). */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { ApbfDerived } from '../families/apbf/types.js';
import { buildFilter, isTbf, type FilterDerived } from '../families/legacy.js';
import type { TbfDerived } from '../families/tbf/types.js';
import { ApbfModel } from '../families/apbf/model.js';
import { TbfModel } from '../families/tbf/model.js';
import { compileApbf } from '../families/apbf/fast.js';
import { driveTbf } from '../../sim/verify/tbf.js';
import { DoesNotFitError, synthesize, TARGETS, type SynthResult, type Target } from '../synth/index.js';
import { driveApbf, uniformWorkload } from '../../sim/verify/apbf.js';
import { simBench } from '../../sim/bench/simBench.js';
import { Rng } from '../util/rng.js';
import { UsageError } from './errors.js';
import { loadConfig } from './filters.js';

function targetArg(v: string): Target {
  if (!(TARGETS as readonly string[]).includes(v))
    throw new InvalidArgumentError(`--target must be one of ${TARGETS.join(', ')}`);
  return v as Target;
}

function seedsArg(v: string): number {
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 20)
    throw new InvalidArgumentError('--seeds must be a whole number in 1..20');
  return Number(v);
}

export function printSynth(r: SynthResult): void {
  console.log(
    `${r.design} on ${r.target}${r.cached ? ' (cached)' : ''}: ${r.luts} LUTs, ${r.ffs} FFs, ${r.brams} block RAMs, ${r.dsps} DSPs`,
  );
  if (r.fmaxMHz !== null) {
    console.log(
      `  fmax ${r.fmaxMHz.toFixed(1)} MHz (median of ${r.fmaxBySeed.map((s) => s.fmaxMHz.toFixed(1)).join(', ')})`,
    );
    if (r.criticalPath) {
      console.log(
        `  critical path ${r.criticalPath.delayNs.toFixed(2)} ns: ${r.criticalPath.from} -> ${r.criticalPath.to}`,
      );
      console.log(`    through ${r.criticalPath.cells.join(', ')}`);
    }
  }
  console.log(`  ${r.note}`);
}

export interface Sustained {
  ops: number;
  cycles: number;
  opsPerCycle: number;
  /** APBF/APBBF: generation shifts during the run; null for TBF/BTBF. */
  shifts: number | null;
  /** TBF/BTBF: full cycles of T+ during the run; null for APBF/APBBF. */
  wraps: number | null;
  stalls: number;
}

/**
 * Sustained ops/cycle: one request every cycle, out_ready always high, across >= 10 generation
 * shifts (APBF/APBBF) or >= 3 wraps of T+ (TBF/BTBF).
 */
export function sustainedOpsPerCycle(c: FilterDerived): Sustained {
  if (isTbf(c)) {
    const perWrap = c.blockSize * (c.tOmega + 1);
    // Half the ops insert: 3.5 wraps of inserts.
    const ops = Math.max(20_000, Math.ceil(7 * perWrap));
    const r = driveTbf(c, { ops, seed: 1, mix: { query: 1, insert: 2, testAndInsert: 1 } });
    const cycles = r.lastAccept - r.firstAccept + 1;
    return { ops: r.ops, cycles, opsPerCycle: r.ops / cycles, shifts: null, wraps: r.wraps, stalls: r.stallCycles };
  }
  const ops = Math.max(20_000, 11 * c.generation);
  const r = driveApbf(c, { ops, seed: 1, mix: { query: 1, insert: 2, testAndInsert: 1 } });
  const cycles = r.lastAccept - r.firstAccept + 1;
  return {
    ops: r.ops,
    cycles,
    opsPerCycle: r.ops / cycles,
    shifts: r.model.shifts,
    wraps: null,
    stalls: r.stallCycles,
  };
}

export interface SoftwareSpeed {
  /** 'compiled': the config-specialised software filter (src/model/apbfFast.ts); 'reference': the model. */
  engine: 'compiled' | 'reference';
  insert: number;
  query: number;
  testAndInsert: number;
}

/** Software TBF/BTBF reference model speed per op (ops/s) on one key stream (bigint keys). */
export function softwareTbfOpsPerSec(c: TbfDerived, n = 200_000): SoftwareSpeed {
  const w = uniformWorkload(c.keyBits, 4 * c.window);
  const rng = new Rng(5);
  const keys = Array.from({ length: n }, () => w.nextKey(rng));
  const time = (f: (m: TbfModel, k: bigint) => unknown): number => {
    const m = new TbfModel(c);
    const run = (count: number): void => {
      for (let i = 0; i < count; i++) f(m, keys[i]!);
    };
    run(Math.min(n, 20_000));
    const t0 = process.hrtime.bigint();
    run(n);
    return n / (Number(process.hrtime.bigint() - t0) / 1e9);
  };
  return {
    engine: 'reference',
    insert: time((m, k) => m.insert(k)),
    query: time((m, k) => m.query(k)),
    testAndInsert: time((m, k) => m.testAndInsert(k)),
  };
}

/**
 * Software reference model speed per op on one key stream (ops/s), keys handed over as 32-bit
 * words (the allocation-free path; the bigint API adds conversions on top).
 */
export function softwareOpsPerSec(c: ApbfDerived, n = 1_000_000): SoftwareSpeed {
  const w = uniformWorkload(c.keyBits, 4 * c.window);
  const rng = new Rng(5);
  const kw = Math.ceil(c.keyBits / 32);
  const keys = new Uint32Array(n * kw);
  for (let i = 0; i < n; i++) {
    let v = w.nextKey(rng);
    for (let j = 0; j < kw; j++) {
      keys[i * kw + j] = Number(v & 0xffffffffn);
      v >>= 32n;
    }
  }
  type Op = (keys: Uint32Array, off: number) => unknown;
  const engine = compileApbf(c) ? 'compiled' : 'reference';
  // A fresh filter per op kind; the same key stream for each.
  const fresh = (): Record<'insert' | 'query' | 'testAndInsert', Op> => {
    const f = compileApbf(c);
    if (f) return { insert: f.insert, query: f.query, testAndInsert: f.testAndInsert };
    const m = new ApbfModel(c);
    const k = new Uint32Array(kw);
    const load = (keys: Uint32Array, off: number): Uint32Array => {
      for (let j = 0; j < kw; j++) k[j] = keys[off + j]!;
      return k;
    };
    return {
      insert: (keys, off) => m.insertWords(load(keys, off)),
      query: (keys, off) => m.queryWords(load(keys, off)),
      testAndInsert: (keys, off) => m.testAndInsertWords(load(keys, off)),
    };
  };
  const time = (name: 'insert' | 'query' | 'testAndInsert'): number => {
    const fns = fresh();
    const op = fns[name];
    if (name === 'query') for (let i = 0; i < n; i++) fns.insert(keys, i * kw); // query a filled filter
    for (let i = 0; i < Math.min(n, 100_000); i++) op(keys, i * kw); // warm-up
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) op(keys, i * kw);
    return n / (Number(process.hrtime.bigint() - t0) / 1e9);
  };
  return { engine, insert: time('insert'), query: time('query'), testAndInsert: time('testAndInsert') };
}

export function registerHwCommands(p: Command): void {
  p.command('synth')
    .description('synthesize a filter config: resources, and fmax on iCE40 (nextpnr, N seeds)')
    .argument('<config>', 'preset name or config JSON file')
    .option('--target <t>', `one of ${TARGETS.join(', ')} (default: the config's target)`, targetArg)
    .option('--seeds <n>', 'nextpnr seeds (iCE40)', seedsArg, 3)
    .option('--json', 'print JSON')
    .action(async (spec: string, o: { target?: Target; seeds: number; json?: boolean }) => {
      const c = loadConfig(spec);
      const target = o.target ?? (c.target as Target);
      try {
        const r = await synthesize(buildFilter(c), { target, seeds: o.seeds });
        if (o.json) console.log(JSON.stringify(r, null, 2));
        else printSynth(r);
      } catch (e) {
        if (e instanceof DoesNotFitError) throw new UsageError(e.message);
        throw e;
      }
    });

  p.command('bench')
    .description('hardware vs software: ops/cycle, fmax, Mops/s, simulator vs Verilator, model ops/s')
    .argument('<config>', 'preset name or config JSON file')
    .option('--seeds <n>', 'nextpnr seeds (iCE40)', seedsArg, 3)
    .option('--cycles <n>', 'simulator benchmark cycles', (v) => Number(v), 1_000_000)
    .option('--json', 'print JSON')
    .action(async (spec: string, o: { seeds: number; cycles: number; json?: boolean }) => {
      const r = await benchConfig(spec, o.seeds, o.cycles);
      if (o.json) console.log(JSON.stringify(r, null, 2));
      else console.log(formatBenchTable([r]));
    });
}

export interface BenchResult {
  config: string;
  target: string;
  opsPerCycle: number;
  shifts: number | null;
  wraps: number | null;
  stallCycles: number;
  fmaxMHz: number | null;
  hwMopsPerSec: number | null;
  simCyclesPerSec: number;
  verilatorCyclesPerSec: number;
  simOverVerilator: number;
  swOpsPerSec: SoftwareSpeed;
  hwOverSw: number | null;
}

export async function benchConfig(spec: string, seeds: number, cycles: number): Promise<BenchResult> {
  const c = loadConfig(spec);
  const d = buildFilter(c);
  const sus = sustainedOpsPerCycle(c);
  const synth = await synthesize(d, { target: c.target as Target, seeds });
  const sim = await simBench(d, cycles);
  const sw = isTbf(c) ? softwareTbfOpsPerSec(c) : softwareOpsPerSec(c);
  const hw = synth.fmaxMHz === null ? null : synth.fmaxMHz * sus.opsPerCycle;
  return {
    config: c.name,
    target: c.target,
    opsPerCycle: sus.opsPerCycle,
    shifts: sus.shifts,
    wraps: sus.wraps,
    stallCycles: sus.stalls,
    fmaxMHz: synth.fmaxMHz,
    hwMopsPerSec: hw,
    simCyclesPerSec: sim.tsCyclesPerSec,
    verilatorCyclesPerSec: sim.verilatorCyclesPerSec,
    simOverVerilator: sim.tsCyclesPerSec / sim.verilatorCyclesPerSec,
    swOpsPerSec: sw,
    hwOverSw: hw === null ? null : (hw * 1e6) / sw.testAndInsert,
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
