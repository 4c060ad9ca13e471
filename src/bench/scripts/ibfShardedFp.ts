/**
 * The importance-aware filter's false-positive rate measured on the sharded and the one-lane model
 * at the stable point: 20 inserts per cell of a bank (importances uniform on 1..MAX, the family's
 * `insertFields`), then 5000 never-inserted keys with one insert before every 5 of them, over 30
 * instances (seeds 100..129), for 16, 32 and 64 shards of a filter of 1024 cells per bank (k = 3,
 * MAX = 4, 8-cell words, P = 6, Imp-insert; a JSON argument overrides fields), beside the
 * analysis's rate. Prints the mean and its standard error. A model run: the machine does not
 * matter. The table in src/families/ibf/README.md ("On lanes").
 *
 * Usage: npx tsx src/bench/scripts/ibfShardedFp.ts ['{"insert":"max"}' | '{"k":4,"P":16}' | …]
 */
import { resolveLaneConfig } from '../../config/lanes.js';
import type { StreamModel } from '../../families/types.js';
import type { IbfDerived } from '../../families/ibf/types.js';
import { Rng } from '../../util/rng.js';

const extra = JSON.parse(process.argv[2] ?? '{}') as Record<string, unknown>;
const cfg: Record<string, unknown> = {
  name: 'm_ibf',
  filter: 'ibf',
  insert: 'imp',
  k: 3,
  max: 4,
  cells: 1024,
  cellsPerWord: 8,
  P: 6,
  keyBits: 32,
  seed: 5,
  target: 'ecp5',
  lanes: 8,
  ...extra,
};
const meanAndError = (xs: number[]): string => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
  return `${m.toFixed(4)} ± ${(sd / Math.sqrt(xs.length)).toFixed(4)}`;
};
const cells = cfg.cells as number;
const keyBits = cfg.keyBits as number;
for (const shards of [16, 32, 64]) {
  const lf = resolveLaneConfig({ ...cfg, shards }, 'ibfShardedFp');
  const sharded: number[] = [];
  const single: number[] = [];
  for (let r = 0; r < 30; r++) {
    const s: StreamModel = lf.model();
    const one: StreamModel = lf.base.model();
    const rng = new Rng(100 + r);
    const insert = (): void => {
      const key = rng.bits(keyBits) | 1n; // odd: inserted
      const req = { op: 'insert', key, tag: 0, fields: lf.insertFields(rng) };
      s.apply(req);
      one.apply(req);
    };
    for (let i = 0; i < 20 * cells; i++) insert();
    let fpS = 0;
    let fp1 = 0;
    const Q = 5000;
    for (let q = 0; q < Q; q++) {
      if (q % 5 === 0) insert();
      const req = { op: 'query', key: rng.bits(keyBits) & ~1n, tag: 0, fields: {} }; // even: never inserted
      if (s.apply(req).hit) fpS++;
      if (one.apply(req).hit) fp1++;
    }
    sharded.push(fpS / Q);
    single.push(fp1 / Q);
  }
  const C = (lf.shard.config as IbfDerived).cellsPerWord;
  console.log(
    `${String(cfg.insert)} k=${String(cfg.k)} MAX=${String(cfg.max)} P=${String(cfg.P)}: ${shards} shards of ` +
      `${cells / shards} cells (${cells / shards / C} words): sharded ${meanAndError(sharded)}, ` +
      `one lane ${meanAndError(single)}, analysis ${lf.analyze().values.fp.toFixed(4)}`,
  );
}
