/**
 * `npm run bench`: the hardware-vs-software bench (src/bench/hw.ts) on every family's bench
 * presets, one markdown table with the date, the machine (CPU model, cores), node and the command.
 * Usage: npm run bench -- [--seeds N] [--cycles N]
 */
import os from 'node:os';
import { benchFilter, formatBenchTable, type BenchResult } from '../../src/bench/hw.js';
import { loadConfig } from '../../src/config/resolve.js';
import { FAMILIES } from '../../src/families/index.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt: number): number => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const rows: BenchResult[] = [];
for (const p of FAMILIES.flatMap((f) => f.benchPresets))
  rows.push(await benchFilter(loadConfig(p), opt('--seeds', 3), opt('--cycles', 1_000_000)));
console.log(
  `bench on ${new Date().toISOString().slice(0, 10)}, ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, ` +
    `node ${process.version}: npm run bench`,
);
console.log(formatBenchTable(rows));
