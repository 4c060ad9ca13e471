/**
 * The bitwise filter's false-positive rate measured on the sharded and the one-lane model at its
 * capacity (`measureShardedFp`, what `lanes analyze` runs: n distinct items added, then 5000
 * never-inserted keys), over 60 instances (seeds 10..69), for bitwise_l3_w448 on 8 lanes over 64
 * shards, as configured and with k = 1 at every level, beside the analysis's rates. Prints the
 * means. A model run: the machine does not matter. The figures in src/families/bitwise/README.md
 * ("On lanes"); test/families/bitwise/lanes.test.ts checks the same runs within 3 %.
 *
 * Usage: npx tsx src/bench/scripts/bitwiseShardedFp.ts
 */
import { loadPreset } from '../../config/resolve.js';
import { resolveLaneConfig } from '../../config/lanes.js';
import { measureShardedFp } from '../../lanes/analysis.js';

const w448: Record<string, unknown> = { ...(loadPreset('bitwise_l3_w448') as Record<string, unknown>), target: 'ecp5' };
const k1 = { ...w448, levels: (w448.levels as { cells: number; width: number }[]).map((L) => ({ ...L, k: 1 })) };
for (const [name, cfg] of [
  ['bitwise_l3_w448', w448],
  ['k = 1 at every level', k1],
] as const) {
  const lf = resolveLaneConfig({ ...cfg, lanes: 8, shards: 64 }, 'bitwiseShardedFp');
  const a = lf.analyze().values;
  const ms = Array.from({ length: 60 }, (_, i) => measureShardedFp(lf, { queries: 5_000, seed: 10 + i }));
  const mean = (f: (m: (typeof ms)[number]) => number): number => ms.reduce((t, m) => t + f(m), 0) / ms.length;
  console.log(
    `${name}, 64 shards: analysed ${a.fp.toFixed(5)} (one lane ${a.fpOneLane.toFixed(5)}), ` +
      `measured ${mean((m) => m.sharded).toFixed(5)} (one lane ${mean((m) => m.single).toFixed(5)})`,
  );
}
