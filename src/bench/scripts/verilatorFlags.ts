/**
 * `npm run bench:verilator-flags`: Verilator's cycles/s on the bench stimulus of `bench:sim` under
 * each build variant of src/bench/verilatorFlags.ts (Verilator's flags, the C++ optimisation,
 * threads), so the TS simulator is compared with Verilator at its best. Each variant runs
 * `--reps` times (default 3), interleaved; the table gives the median and each variant's
 * geometric mean against `default`, and names the fastest.
 *
 * Usage: npm run bench:verilator-flags -- [--cycles N] [--reps R] [--json] [DESIGN…]
 * DESIGN: a preset name or h3_banks8; default: h3_banks8 and every family's bench preset.
 */
import { h3Banks } from '../../examples/index.js';
import { machineInfo, machineLine } from '../machine.js';
import { timeVariants, type FlagsResult } from '../sim.js';
import { VERILATOR_VARIANTS } from '../verilatorFlags.js';
import { loadConfig } from '../../config/resolve.js';
import { FAMILIES } from '../../families/index.js';
import type { Design } from '../../ir/types.js';

function usage(msg: string): never {
  console.error(`bench:verilator-flags: ${msg}`);
  process.exit(2);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const opt = (name: string, dflt: number): number => {
    const i = args.indexOf(name);
    if (i < 0) return dflt;
    const v = Number(args[i + 1]);
    args.splice(i, 2);
    return v;
  };
  const cycles = opt('--cycles', 1_000_000);
  const reps = opt('--reps', 3);
  const json = args.includes('--json');
  const names = args.filter((a) => a !== '--json');
  if (!Number.isInteger(cycles) || cycles < 1000) usage('--cycles must be an integer >= 1000');
  if (!Number.isInteger(reps) || reps < 1) usage('--reps must be a positive integer');
  const bench = FAMILIES.flatMap((f) => f.benchPresets);
  let designs: Design[];
  try {
    designs = (names.length ? names : ['h3_banks8', ...bench]).map((n) =>
      n === 'h3_banks8' ? h3Banks() : loadConfig(n).design(),
    );
  } catch (e) {
    usage((e as Error).message);
  }
  const machine = await machineInfo();
  const results: FlagsResult[] = [];
  for (const d of designs) {
    if (!json) process.stderr.write(`${d.name} … `);
    results.push(await timeVariants(d, cycles, VERILATOR_VARIANTS, reps));
    if (!json) process.stderr.write('done\n');
  }
  // Geometric mean over designs of each variant's median against the default's.
  const gmean = VERILATOR_VARIANTS.map((v) => {
    const logs = results.map((r) => {
      const t = r.timings.find((x) => x.variant === v.name)!;
      return Math.log(t.median / r.timings[0]!.median);
    });
    return { variant: v.name, vsDefault: Math.exp(logs.reduce((s, x) => s + x, 0) / logs.length) };
  });
  const fastest = gmean.reduce((a, b) => (b.vsDefault > a.vsDefault ? b : a));
  const allEqual = results.every((r) => r.timings.every((t) => t.outputsEqual));
  if (json) {
    console.log(
      JSON.stringify({ machine, cycles, reps, variants: VERILATOR_VARIANTS, results, gmean, fastest }, null, 2),
    );
  } else {
    console.log(
      `bench:verilator-flags on ${machineLine(machine)}: ${cycles} cycles, median of ${reps} runs, M cycles/s`,
    );
    for (const v of VERILATOR_VARIANTS) console.log(`  ${v.name.padEnd(14)} ${v.what}`);
    console.log(`${'design'.padEnd(26)}${VERILATOR_VARIANTS.map((v) => v.name.padStart(15)).join('')}`);
    for (const r of results)
      console.log(
        `${r.design.padEnd(26)}${r.timings.map((t) => `${(t.median / 1e6).toFixed(2)}${t.outputsEqual ? ' ' : '!'}`.padStart(15)).join('')}`,
      );
    console.log(
      `${'geomean vs default'.padEnd(26)}${gmean.map((g) => `${g.vsDefault.toFixed(3)}x `.padStart(15)).join('')}`,
    );
    console.log(`fastest: ${fastest.variant} (${fastest.vsDefault.toFixed(3)}x the default)`);
    if (!allEqual) console.log('outputs differ where marked !');
  }
  if (!allEqual) process.exitCode = 1;
}

if (process.argv[1] && /verilatorFlags\.ts$/.test(process.argv[1])) await main();
