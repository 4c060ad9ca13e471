/**
 * `npm run bench`: `bloomforge bench` on the default presets, one table (markdown) with the date,
 * the machine's core count and the command. Usage: npm run bench -- [--seeds N] [--cycles N]
 */
import os from 'node:os';
import { benchConfig, formatBenchTable, type BenchResult } from '../../src/cli/hw.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt: number): number => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const presets = ['apbf_k4_l3', 'apbbf_k2_l5_b512_4', 'btbf_k4_w512_b16'];
const rows: BenchResult[] = [];
for (const p of presets) rows.push(await benchConfig(p, opt('--seeds', 3), opt('--cycles', 1_000_000)));
console.log(
  `bench on ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, node ${process.version}: npm run bench`,
);
console.log(formatBenchTable(rows));
