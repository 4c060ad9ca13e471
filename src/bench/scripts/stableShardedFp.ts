/**
 * The stable filter's false-positive rate measured on the sharded and the one-lane model at the
 * stable point (`measureShardedFp`, what `lanes analyze` runs: 20 inserts per cell of a bank, then
 * 5000 never-inserted keys), over 60 instances (seeds 20..79), for 16 and 64 shards of a filter of
 * 1024 cells per bank (k = 3, d = 2, 8-cell words, P = 12), beside the analysis's rate. Prints the
 * mean and its standard error. A model run: the machine does not matter.
 *
 * Usage: npx tsx src/bench/scripts/stableShardedFp.ts
 */
import { resolveLaneConfig } from '../../config/lanes.js';
import { measureShardedFp } from '../../lanes/analysis.js';

const cfg = {
  name: 'm_stable',
  filter: 'stable',
  k: 3,
  d: 2,
  cells: 1024,
  cellsPerWord: 8,
  P: 12,
  keyBits: 32,
  seed: 5,
  target: 'ecp5',
  lanes: 8,
};
const meanAndError = (xs: number[]): string => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
  return `${m.toFixed(4)} ± ${(sd / Math.sqrt(xs.length)).toFixed(4)}`;
};
for (const shards of [16, 64]) {
  const lf = resolveLaneConfig({ ...cfg, shards }, 'stableShardedFp');
  const runs = Array.from({ length: 60 }, (_, i) => measureShardedFp(lf, { queries: 5000, seed: 20 + i }));
  const analysis = lf.analyze().values.fp;
  console.log(
    `${shards} shards of ${1024 / shards} cells per bank: sharded ${meanAndError(runs.map((r) => r.sharded))}, ` +
      `one lane ${meanAndError(runs.map((r) => r.single))}, analysis ${analysis.toFixed(4)} (${runs[0]!.inserts} inserts, 60 × 5000 probes)`,
  );
}
