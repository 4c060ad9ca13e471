/**
 * `npm run bench:sim`: src/bench/sim.ts on the probe design of the hardware notes (h3_banks8) and
 * every family's bench presets and the N-lane presets. Prints cycles/s of the TS simulator (WebAssembly and JavaScript
 * cycle loops) and of Verilator on the same stimulus (built as src/bench/verilatorFlags.ts's
 * BENCH_VARIANT says, named in the header and in --json), and whether all outputs agree.
 *
 * Usage: npm run bench:sim -- [--cycles N] [--reps R] [--design NAME]... [--config SPEC]... [--json]
 * (--design: only the named designs; each name must be one of the bench designs. --config: a
 * preset name or config JSON file, one-lane or N-lane (with `lanes`/`shards`), benched instead.)
 * Each engine runs R times (default 3), interleaved, and its best rate counts (src/bench/sim.ts).
 * The header (and `machine` in --json) names the CPU, cores, node, Verilator and the commit.
 * The WebAssembly loops are timed as optimised code only (V8 flag --no-liftoff, named in the
 * header and as `v8Flags` in --json; why: `optimisedWasmOnly` in sim/compiled.ts).
 */
import { h3Banks } from '../../examples/index.js';
import { machineInfo, machineLine } from '../machine.js';
import { simBench, type SimBenchResult } from '../sim.js';
import { optimisedWasmOnly } from '../../../sim/compiled.js';
import { loadConfig } from '../../config/resolve.js';
import { FAMILIES } from '../../families/index.js';
import { lanePresets } from '../../config/lanes.js';
import { loadFilter } from '../../config/load.js';
import type { AnyFilter } from '../../lanes/filter.js';
import { ConfigError, UsageError } from '../../util/errors.js';
import { BENCH_VARIANT, variantByName } from '../verilatorFlags.js';

/** A config (one-lane or N-lane) by preset name or file; a bad one ends the run naming it (exit 2). */
function loadFilterOrExit(spec: string): AnyFilter {
  try {
    return loadFilter(spec);
  } catch (e) {
    if (!(e instanceof ConfigError) && !(e instanceof UsageError)) throw e;
    console.error(`bench:sim: --config ${e.message.split('\n')[0]}`);
    process.exit(2);
  }
}

async function main(): Promise<void> {
  const v8Flags = [optimisedWasmOnly()];
  const args = process.argv.slice(2);
  const i = args.indexOf('--cycles');
  const cycles = i >= 0 ? Number(args[i + 1]) : 2_000_000;
  if (!Number.isInteger(cycles) || cycles < 1000) {
    console.error('bench:sim: --cycles must be an integer >= 1000');
    process.exit(2);
  }
  const j = args.indexOf('--reps');
  const reps = j >= 0 ? Number(args[j + 1]) : 3;
  if (!Number.isInteger(reps) || reps < 1) {
    console.error('bench:sim: --reps must be a positive integer');
    process.exit(2);
  }
  // Every family's bench presets, then the N-lane presets (their designs keep the preset's name).
  const all = [
    h3Banks(),
    ...FAMILIES.flatMap((f) => f.benchPresets).map((n) => loadConfig(n).design()),
    ...lanePresets().map((l) => l.design()),
  ];
  const only = args.flatMap((a, k) => (a === '--design' ? [args[k + 1] ?? ''] : []));
  for (const n of only)
    if (!all.some((d) => d.name === n)) {
      console.error(`bench:sim: --design '${n}' is not a bench design (${all.map((d) => d.name).join(', ')})`);
      process.exit(2);
    }
  // --config: those configs' designs (these win over a bench design of the same name).
  const configs = args.flatMap((a, k) => (a === '--config' ? [loadFilterOrExit(args[k + 1] ?? '').design()] : []));
  const picked = only.length || configs.length ? all.filter((d) => only.includes(d.name)) : all;
  const designs = [...configs, ...picked.filter((d) => !configs.some((c) => c.name === d.name))];
  const results: SimBenchResult[] = [];
  const machine = await machineInfo();
  const vb = variantByName(BENCH_VARIANT);
  for (const d of designs) results.push(await simBench(d, cycles, vb.variant, reps));
  if (args.includes('--json')) {
    console.log(
      JSON.stringify(
        { machine, v8Flags, cycles, reps, verilatorBuild: { name: vb.name, what: vb.what }, results },
        null,
        2,
      ),
    );
  } else {
    console.log(`bench:sim on ${machineLine(machine)}: ${cycles} cycles per engine, best of ${reps} interleaved runs`);
    console.log(`TS simulator: WebAssembly loops timed as optimised code (V8 ${v8Flags.join(' ')})`);
    console.log(`Verilator build '${vb.name}': ${vb.what}`);
    console.log(
      'design                TS cycles/s   Verilator cycles/s   TS/Verilator   TS, JS loop   JS loop/Verilator   outputs equal',
    );
    const M = (x: number, w: number): string => `${(x / 1e6).toFixed(2).padStart(w)} M`;
    for (const r of results) {
      console.log(
        `${r.design.padEnd(20)} ${M(r.tsCyclesPerSec, 9)} ${M(r.verilatorCyclesPerSec, 16)} ${r.ratio.toFixed(2).padStart(13)}x ` +
          `${M(r.tsJsCyclesPerSec, 11)} ${(r.tsJsCyclesPerSec / r.verilatorCyclesPerSec).toFixed(2).padStart(18)}x   ${r.outputsEqual ? 'yes' : 'NO'}`,
      );
    }
  }
  if (results.some((r) => !r.outputsEqual)) process.exitCode = 1;
}

if (process.argv[1] && /simBench\.ts$/.test(process.argv[1])) await main();
