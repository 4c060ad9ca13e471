/**
 * `npm run bench:sim-scaling`: how the cost of a simulated cycle grows, on the TS simulator
 * (WebAssembly loop) and on Verilator (the bench build, src/bench/verilatorFlags.ts), for one family (APBF, 64-bit keys, the bench stimulus
 * of `bench:sim`: a request every cycle, never back-pressured):
 *   - memory: (k, l) = (4, 3) with slices of 2^10 … 2^20 bits (the logic grows only by the
 *     address bits; the block RAM contents grow 1024-fold);
 *   - logic: 4096-bit slices with k + l from 2 to 31 (more slices, hashes, window logic).
 * Each point is `simBench` of src/bench/sim.ts (each engine's best of --reps runs, outputs compared). Prints a
 * table with the machine line; writes JSON, CSV and two SVG charts under -o (default
 * out/bench-sim-scaling).
 *
 * Usage: npm run bench:sim-scaling -- [--cycles N] [--reps R] [--json] [-o DIR]
 * (each engine's best of R interleaved runs per point, default 3)
 * The WebAssembly loops are timed as optimised code only, as in `bench:sim` (V8 flag --no-liftoff,
 * `v8Flags` in the JSON; why: `optimisedWasmOnly` in sim/compiled.ts).
 */
import path from 'node:path';
import { machineInfo, machineLine } from '../machine.js';
import { BENCH_VARIANT, variantByName } from '../verilatorFlags.js';
import { simBench, type SimBenchResult } from '../sim.js';
import { optimisedWasmOnly } from '../../../sim/compiled.js';
import { resolveConfig } from '../../config/resolve.js';
import { toCsv, toSvg } from '../../experiments/chart.js';
import type { ExperimentResult, Series } from '../../families/types.js';
import { writeAll } from '../../util/files.js';

export const MEMORY_POINTS = Array.from({ length: 11 }, (_, i) => 10 + i);
export const LOGIC_POINTS: [number, number][] = [
  [1, 1],
  [2, 1],
  [3, 2],
  [4, 3],
  [6, 5],
  [8, 7],
  [10, 9],
  [16, 15],
];

export interface ScalingPoint {
  sweep: 'memory' | 'logic';
  k: number;
  l: number;
  sliceBits: number;
  result: SimBenchResult;
}

/** The APBF of one point (Xilinx target: every size builds; the simulators do not care). */
export function scalingConfig(k: number, l: number, sliceBits: number): Record<string, unknown> {
  return {
    name: `apbf_scale_k${k}_l${l}_s${sliceBits}`,
    filter: 'apbf',
    k,
    l,
    sliceBits,
    keyBits: 64,
    seed: 1,
    keyMix: 'none',
    target: 'xilinx',
  };
}

function charts(points: ScalingPoint[], cycles: number, reps: number): ExperimentResult[] {
  const series = (sweep: 'memory' | 'logic', x: (p: ScalingPoint) => number): Series[] => {
    const ps = points.filter((p) => p.sweep === sweep);
    return [
      {
        name: 'TS simulator',
        kind: 'measured',
        points: ps.map((p) => ({ x: x(p), y: p.result.tsCyclesPerSec / 1e6 })),
      },
      {
        name: 'Verilator',
        kind: 'measured',
        points: ps.map((p) => ({ x: x(p), y: p.result.verilatorCyclesPerSec / 1e6 })),
      },
    ];
  };
  const command = `npm run bench:sim-scaling -- --cycles ${cycles} --reps ${reps}`;
  return [
    {
      name: 'sim-scaling-memory',
      title: 'APBF (4, 3): simulated cycles/s as the slices grow',
      xLabel: 'log2 bits per slice',
      yLabel: 'M cycles/s',
      logY: true,
      series: series('memory', (p) => Math.log2(p.sliceBits)),
      params: { k: 4, l: 3, cycles, reps },
      command,
    },
    {
      name: 'sim-scaling-logic',
      title: 'APBF, 4096-bit slices: simulated cycles/s as k + l grows',
      xLabel: 'k + l (slices)',
      yLabel: 'M cycles/s',
      logY: true,
      series: series('logic', (p) => p.k + p.l),
      params: { sliceBits: 4096, cycles, reps },
      command,
    },
  ];
}

function argValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const cycles = Number(argValue(args, '--cycles') ?? 500_000);
  const reps = Number(argValue(args, '--reps') ?? 3);
  if (!Number.isInteger(reps) || reps < 1) {
    console.error('bench:sim-scaling: --reps must be a positive integer');
    process.exit(2);
  }
  if (!Number.isInteger(cycles) || cycles < 1000) {
    console.error('bench:sim-scaling: --cycles must be an integer >= 1000');
    process.exit(2);
  }
  const outDir = path.resolve(argValue(args, '-o') ?? 'out/bench-sim-scaling');
  const v8Flags = [optimisedWasmOnly()];
  const machine = await machineInfo();
  const vb = variantByName(BENCH_VARIANT);
  const verilatorBuild = { name: vb.name, what: vb.what };
  const todo: Omit<ScalingPoint, 'result'>[] = [
    ...MEMORY_POINTS.map((b) => ({ sweep: 'memory' as const, k: 4, l: 3, sliceBits: 2 ** b })),
    ...LOGIC_POINTS.map(([k, l]) => ({ sweep: 'logic' as const, k, l, sliceBits: 4096 })),
  ];
  const points: ScalingPoint[] = [];
  for (const t of todo) {
    const cfg = scalingConfig(t.k, t.l, t.sliceBits);
    const d = resolveConfig(cfg, String(cfg.name)).design();
    if (!args.includes('--json')) process.stderr.write(`${d.name} … `);
    const result = await simBench(d, cycles, vb.variant, reps);
    if (!args.includes('--json')) process.stderr.write(`${(result.tsCyclesPerSec / 1e6).toFixed(2)} M\n`);
    points.push({ ...t, result });
  }
  const results = charts(points, cycles, reps);
  const files: Record<string, string> = {
    'sim-scaling.json': `${JSON.stringify({ machine, v8Flags, cycles, reps, verilatorBuild, points }, null, 2)}\n`,
  };
  for (const r of results) {
    files[`${r.name}.csv`] = toCsv(r);
    files[`${r.name}.svg`] = await toSvg(r);
  }
  const written = writeAll(outDir, files, '-o');
  if (args.includes('--json'))
    console.log(JSON.stringify({ machine, v8Flags, cycles, reps, verilatorBuild, points }, null, 2));
  else {
    console.log(`bench:sim-scaling on ${machineLine(machine)}: ${cycles} cycles per engine and point, best of ${reps}`);
    console.log(`Verilator build '${vb.name}': ${vb.what}`);
    console.log(`TS simulator: WebAssembly loops timed as optimised code (V8 ${v8Flags.join(' ')})`);
    console.log('sweep   k   l   slice bits   TS cycles/s   Verilator cycles/s   TS/Verilator   outputs equal');
    for (const p of points) {
      const r = p.result;
      console.log(
        `${p.sweep.padEnd(6)} ${String(p.k).padStart(2)}  ${String(p.l).padStart(2)}  ${String(p.sliceBits).padStart(11)} ` +
          `${(r.tsCyclesPerSec / 1e6).toFixed(2).padStart(11)} M ${(r.verilatorCyclesPerSec / 1e6).toFixed(2).padStart(18)} M ` +
          `${r.ratio.toFixed(2).padStart(13)}x   ${r.outputsEqual ? 'yes' : 'NO'}`,
      );
    }
    for (const w of written) console.log(`wrote ${w}`);
  }
  if (points.some((p) => !p.result.outputsEqual)) process.exitCode = 1;
}

if (process.argv[1] && /scaling\.ts$/.test(process.argv[1])) await main();
