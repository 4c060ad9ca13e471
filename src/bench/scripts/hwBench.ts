/**
 * `npm run bench`: the hardware-vs-software bench (src/bench/hw.ts) on every family's bench
 * presets, one markdown table with the date, the machine (CPU model, cores), node and the command.
 * Usage: npm run bench -- [--seeds N] [--cycles N] [--families id,id]
 */
import { machineInfo, machineLine } from '../machine.js';
import { benchFilter, formatBenchTable, type BenchResult } from '../hw.js';
import { loadConfig } from '../../config/resolve.js';
import { FAMILIES } from '../../families/index.js';

const args = process.argv.slice(2);
const opt = (name: string, dflt: number): number => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const famArg = args.indexOf('--families');
const wanted = famArg >= 0 ? (args[famArg + 1] ?? '').split(',') : FAMILIES.map((f) => f.id);
const unknown = wanted.filter((id) => !FAMILIES.some((f) => f.id === id));
if (unknown.length > 0) {
  console.error(`bench: --families: unknown family '${unknown[0]}' (known: ${FAMILIES.map((f) => f.id).join(', ')})`);
  process.exit(2);
}
const machine = await machineInfo();
const rows: BenchResult[] = [];
for (const p of FAMILIES.filter((f) => wanted.includes(f.id)).flatMap((f) => f.benchPresets))
  rows.push(await benchFilter(loadConfig(p), opt('--seeds', 3), opt('--cycles', 1_000_000)));
console.log(
  `bench on ${new Date().toISOString().slice(0, 10)}, ${machineLine(machine)}: npm run bench -- ${args.join(' ')}`,
);
console.log(formatBenchTable(rows));
