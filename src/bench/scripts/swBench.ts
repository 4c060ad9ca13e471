/**
 * `npm run bench:sw -- PRESET... [--rounds N]`: the software filters of the named presets (or
 * config files) measured in one process, interleaved, N rounds (default 3) — the function `bench`
 * uses for its software column (`softwareOpsPerSec`, src/bench/hw.ts), so rates of two families
 * are compared under the same machine load. One markdown table: min–max over the rounds, M ops/s.
 */
import { machineInfo, machineLine } from '../machine.js';
import { softwareOpsPerSec, type SoftwareSpeed } from '../hw.js';
import { loadConfig } from '../../config/resolve.js';

const args = process.argv.slice(2);
const ri = args.indexOf('--rounds');
const rounds = ri >= 0 ? Number(args[ri + 1]) : 3;
const names = args.filter((a, i) => !a.startsWith('--') && (ri < 0 || i !== ri + 1));
if (names.length === 0 || !Number.isInteger(rounds) || rounds < 1) {
  console.error('bench:sw: usage: npm run bench:sw -- PRESET... [--rounds N] (N a positive integer)');
  process.exit(2);
}
let filters;
try {
  filters = names.map((n) => loadConfig(n));
} catch (e) {
  console.error(`bench:sw: ${(e as Error).message}`);
  process.exit(2);
}
const ops = ['testAndInsert', 'insert', 'query'] as const;
const seen = filters.map(() => ops.map(() => [] as number[]));
for (let r = 0; r < rounds; r++)
  filters.forEach((f, i) => {
    const s: SoftwareSpeed = softwareOpsPerSec(f);
    ops.forEach((op, j) => {
      const v = s[op];
      if (v !== null && v !== undefined) seen[i]![j]!.push(v / 1e6);
    });
  });
const range = (xs: number[]): string =>
  xs.length === 0 ? 'n/a' : `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;
const machine = await machineInfo();
console.log(
  `bench:sw on ${new Date().toISOString().slice(0, 10)}, ${machineLine(machine)}: npm run bench:sw -- ${args.join(' ')}`,
);
console.log(`\n| config | engine | testAndInsert M ops/s | insert | query |\n|---|---|---|---|---|`);
filters.forEach((f, i) =>
  console.log(`| ${f.config.name} | ${f.software().engine} | ${seen[i]!.map(range).join(' | ')} |`),
);
