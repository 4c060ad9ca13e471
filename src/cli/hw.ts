/** CLI commands for the hardware numbers of any config, one-lane or N-lane: synth (resources, fmax) and bench (throughput). */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { benchFilter, formatBenchTable } from '../bench/hw.js';
import { benchLanes, type LaneBench } from '../bench/lanes.js';
import { machineInfo, machineLine } from '../bench/machine.js';
import type { Target } from '../device/index.js';
import type { LaneFilter } from '../lanes/filter.js';
import type { Design } from '../ir/types.js';
import { criticalPathSources, DoesNotFitError, synthesize, type SynthResult } from '../synth/index.js';
import { EXIT, UsageError } from '../util/errors.js';
import { intArg } from './args.js';
import { loadFor, refuseFor, shapeOptions, TOP, type CommandWorld, type ShapeFlags } from './shape.js';
import { progress } from './progress.js';

function seedsArg(v: string): number {
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 20)
    throw new InvalidArgumentError('--seeds must be a whole number in 1..20');
  return Number(v);
}

export function printSynth(r: SynthResult, d: Design): void {
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
      console.log('    through (cell: DSL line of the net it was made from)');
      for (const x of criticalPathSources(d, r.criticalPath, r.harness))
        console.log(`      ${x.cell}${x.src ? `: ${x.src}${x.net !== x.cell ? ` (${x.net})` : ''}` : ''}`);
    }
  }
  console.log(`  ${r.note}`);
}

interface SynthOptions extends ShapeFlags {
  seeds: number;
  fresh?: boolean;
  control: string;
  json?: boolean;
}

export function synthCommand(parent: Command, world: CommandWorld): void {
  const cmd = parent
    .command('synth')
    .description('synthesize a filter config, one-lane or N-lane: resources, and fmax on iCE40 (nextpnr, N seeds)')
    .argument('<config>', 'preset name or config JSON file')
    .option('--seeds <n>', 'nextpnr seeds (iCE40)', seedsArg, 3)
    .option('--fresh', 'rerun the tools instead of using cached results')
    .option(
      '--control <c>',
      'none | regs: synthesize the design with the control port (generate --control; one-lane filters)',
      'none',
    )
    .option('--json', 'print JSON');
  shapeOptions(cmd).action(async (spec: string, o: SynthOptions) => {
    if (o.control !== 'none' && o.control !== 'regs') throw new UsageError('--control must be one of none, regs');
    const f = loadFor(spec, o, world);
    refuseFor(f, 'lanes', { '--control regs': o.control === 'regs' });
    const design = f.kind === 'one' && o.control === 'regs' ? f.controlDesign() : f.design();
    try {
      await runSynth(design, o.target ?? f.base.config.target, f.name, o);
    } catch (e) {
      if (e instanceof DoesNotFitError) throw new UsageError(e.message);
      // A place-and-route failure is a result, said in one line (exit 1), not a stack trace.
      if (e instanceof Error && /^nextpnr-ice40 failed/.test(e.message)) {
        console.error(`bloomforge: ${e.message}`);
        process.exitCode = 1;
        return;
      }
      throw e;
    }
  });
}

async function runSynth(design: Design, target: Target, name: string, o: SynthOptions): Promise<void> {
  const bar = progress(`synth ${name}`, 1 + o.seeds, 'steps', o.json);
  let r;
  try {
    r = await synthesize(design, {
      target,
      seeds: o.seeds,
      fresh: o.fresh,
      onProgress: (done, total, step) => bar.update(done, step),
    });
  } finally {
    bar.stop();
  }
  const sources = r.criticalPath ? criticalPathSources(design, r.criticalPath, r.harness) : null;
  if (o.json) console.log(JSON.stringify({ ...r, criticalPathSources: sources }, null, 2));
  else printSynth(r, design);
}

interface BenchOptions extends ShapeFlags {
  seeds: number;
  cycles?: number;
  ops?: number;
  synth: boolean;
  threads?: number;
  json?: boolean;
}

const BENCH = { one: { cycles: 1_000_000, ops: 20_000 }, lanes: { cycles: 200_000, ops: 10_000 } };

export function benchCommand(parent: Command, world: CommandWorld): void {
  const cmd = parent
    .command('bench')
    .description(
      'hardware vs software: ops/cycle, fmax, Mops/s, simulator vs Verilator, software ops/s; N lanes: the software filter on every core (one shard per worker thread)',
    )
    .argument('<config>', 'preset name or config JSON file')
    .option('--seeds <n>', 'nextpnr seeds (iCE40)', seedsArg, 3)
    .option(
      '--cycles <n>',
      `simulator benchmark cycles (default ${BENCH.one.cycles}, N lanes ${BENCH.lanes.cycles})`,
      intArg('--cycles', 1000, 100_000_000),
    )
    .option(
      '--ops <n>',
      `requests per lane of the ops/cycle run (a one-lane filter has one; default ${BENCH.one.ops} or its aging run, N lanes ${BENCH.lanes.ops})`,
      intArg('--ops', 100, 10_000_000),
    )
    .option('--no-synth', 'skip synthesis: no fmax, no hardware ops/s')
    .option('--threads <n>', 'N lanes: software threads (default: one per core)', intArg('--threads', 1, 1024))
    .option('--json', 'print JSON');
  shapeOptions(cmd).action(async (spec: string, o: BenchOptions) => {
    const f = loadFor(spec, o, world);
    refuseFor(f, 'one', { '--threads': o.threads !== undefined });
    if (f.kind === 'lanes') return benchLaneFilter(spec, f, o);
    const bar = progress(`bench ${f.name}`, 4, 'steps', o.json);
    let r;
    try {
      const onProgress = (done: number, _total: number, step: string) => bar.update(done, step);
      r = await benchFilter(f, o.seeds, o.cycles ?? BENCH.one.cycles, onProgress, { synth: o.synth, ops: o.ops });
    } finally {
      bar.stop();
    }
    if (o.json) console.log(JSON.stringify(r, null, 2));
    else console.log(formatBenchTable([r]));
  });
}

async function benchLaneFilter(spec: string, lf: LaneFilter, o: BenchOptions): Promise<void> {
  const r = await benchLanes(spec, lf, {
    seeds: o.seeds,
    cycles: o.cycles ?? BENCH.lanes.cycles,
    opsPerLane: o.ops ?? BENCH.lanes.ops,
    synth: o.synth,
    threads: o.threads,
    onStep: o.json ? undefined : (step) => console.error(`  ${step}…`),
  });
  const machine = await machineInfo();
  if (o.json) console.log(JSON.stringify({ ...r, machine }, null, 2));
  else printLaneBench(r, o.seeds, machineLine(machine));
  if (!r.sim.outputsEqual) process.exitCode = EXIT.checkFailed;
}

function printLaneBench(r: LaneBench, seeds: number, machine: string): void {
  const M = (x: number | null): string => (x === null ? 'n/a' : (x / 1e6).toFixed(2));
  console.log(`${r.config}: ${r.lanes} lanes, ${r.shards} shards, ${r.target} — ${machine}`);
  console.log(`  ops/cycle (uniform keys, steady state)  ${r.opsPerCycle.toFixed(3)}`);
  const res = r.luts === null ? '' : `; ${r.luts} LUTs, ${r.brams} block RAMs (Yosys)`;
  console.log(
    r.fmaxMHz === null
      ? `  fmax                                     n/a (${r.fmaxNote ?? ''})${res}`
      : `  fmax (median of ${seeds} seeds)              ${r.fmaxMHz.toFixed(1)} MHz${res}`,
  );
  console.log(
    `  hardware                                 ${r.hwMopsPerSec === null ? 'n/a' : r.hwMopsPerSec.toFixed(1)} M ops/s`,
  );
  console.log(
    `  TS simulator / Verilator                 ${M(r.sim.tsCyclesPerSec)} / ${M(r.sim.verilatorCyclesPerSec)} M cycles/s (${r.sim.ratio.toFixed(2)}x), outputs ${r.sim.outputsEqual ? 'equal' : 'DIFFER'}`,
  );
  console.log(
    `  software, ${r.threads} threads                     ${M(r.swOpsPerSec)} M test-and-insert/s (${r.swPerThread.map((x) => M(x)).join(' + ')})`,
  );
  console.log(
    `  hardware / software                      ${r.hwOverSw === null ? 'n/a' : r.hwOverSw.toFixed(1) + 'x'}`,
  );
}

export function registerHwCommands(p: Command): void {
  synthCommand(p, TOP);
  benchCommand(p, TOP);
}
