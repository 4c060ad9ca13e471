/**
 * The Stable Bloom filter on N lanes over S shards (src/lanes/): each shard is this family's
 * pipeline with 1/S of every bank (cells/S cells, the same k, d (so Max), P, cellsPerWord, seed and
 * key bits), built `direct` (no response queue). A stable filter does not age by count or time —
 * its memory decays insert by insert, each insert decrementing P cells of the words it writes —
 * so there are no ticks and no time; a clear goes to every shard.
 *
 * As a filter the sharded one is S stable filters side by side: the key's shard (shard(x)) holds
 * its k cells (bank i's cell h_i(x) of that shard), and an insert decrements P cells of the k words
 * it writes there. Each shard has its own generator lanes (xorshift32, seeded from the config seed
 * as on one lane, so every shard starts from the same states), stepped by that shard's inserts
 * only: the sharded model (src/lanes/model.ts) builds S instances of this family's model from the
 * shard config, and each steps its own lanes on the inserts it takes, as the shard's RTL does.
 *
 * The shard keeps cellsPerWord: the decrements are word-local (the P_i cells r_i … r_i + P_i − 1
 * of the word an insert writes in bank i), so the word is part of the filter's definition, not only
 * of its layout. A shard needs two words per bank (a block RAM of depth >= 2), so at least
 * 2·cellsPerWord cells; with P = 0 (no decrements: a partitioned Bloom filter of d-bit cells) the
 * words may narrow instead, down to one cell, as a set filter's do.
 *
 * Its false-positive rate (`shardedFp`). The family's fp (./analysis.ts, ./summary.ts) is the
 * stable point of the word-local variant: per insert of a fresh key a cell of bank i is set with
 * probability s = 1/N and decremented (not set) with probability q_i = (P_i/N)(1 − 1/C) (N cells
 * per bank, C per word), so at the stable point it is 0 with probability (q_i/(q_i + s))^Max =
 * (1/(1 + 1/(P_i(1 − 1/C))))^Max and fp = Π_i (1 − that). N cancels: the rate depends on k, Max,
 * P and C, not on m — Deng & Rafiei's P(1/k − 1/m) term (an SBF whose decrements fall anywhere in
 * m cells, `drFalsePositive`) becomes P_i(1 − 1/C) in the word-local variant, where the cells an
 * insert may decrement are the k·C of its words whatever m is. A shard keeps k, Max, P and C, so
 * its stable point is the one-lane one. Per global insert nothing changes either: a cell of a
 * shard of N/S cells is in the inserting key's shard with probability 1/S, then set with
 * probability S/N and decremented with S·q_i, so its transition matrix per global insert,
 * (1 − 1/S)·I + (1/S)·T_shard, is the one-lane T (T is affine in s and q). What a shard's
 * Binomial(n, 1/S) share of the inserts does change is that a probe's k cells see one count
 * together — before the stable point a convex rate's mean over that binomial (as for the set
 * filters, src/families/bloom/lanes.ts) — but at the stable point the state does not depend on
 * the count. So the sharded rate is the family's rate evaluated on the shard config, which is the
 * one-lane rate; it errs as the family's own does (cells taken as independent, insert words
 * uniform: distinct keys). Measured (`npx tsx src/bench/scripts/stableShardedFp.ts`: 1024 cells per bank,
 * k = 3, d = 2, 8-cell words, P = 12, 60 instances of 5000 probes at 20 inserts per cell): 16
 * shards of 64 cells per bank 0.1498 ± 0.0008 against 0.1484 (one lane 0.1485), but 64 shards of
 * 16 cells (two words per bank) 0.1555 ± 0.0010, 4.8 % above — in so small a shard the cells of a
 * probe's banks are not independent in a way this analysis does not capture; it is not modelled.
 *
 * No merging: a second insert of a key in one cycle decrements P more cells (r_i from the stepped
 * generators), so a merged group would leave other memories than its inserts one by one.
 */
import { type Fail, type LaneSupport, wordLocalShard } from '../types.js';
import { stablePoint } from './analysis.js';
import { deriveStableSizes } from './config.js';
import type { StableDerived } from './types.js';

/**
 * One shard: wordLocalShard's sizes, the same k, d, P, seed and key bits; refused naming `shards`
 * where a bank would have fewer than two words.
 */
function shardConfig(c: StableDerived, o: { lanes: number; shards: number }, fail: Fail): StableDerived {
  const { cells, cellsPerWord } = wordLocalShard(c, o, { fail, what: 'the stable filter', decrements: 'decrements' });
  const written: Record<string, unknown> = {
    name: `${c.name}_shard`,
    filter: 'stable',
    k: c.k,
    d: c.d,
    cells,
    cellsPerWord,
    P: c.P,
    keyBits: c.keyBits,
    seed: c.seed,
    target: c.target,
  };
  const shardFail: Fail = (field, message) => fail(field, `(shard of ${cells} cells per bank) ${message}`);
  // The key mix (if any) inside each shard, as on one lane; the shard hash takes the key as given.
  return { ...deriveStableSizes(written, shardFail), keyMix: c.keyMix, direct: true };
}

export const stableLanes: LaneSupport<StableDerived> = {
  broadcastOps: ['clear'],
  shard: shardConfig,
  // The stable point on the shard config (see the comment at the top): the one-lane rate, since a
  // shard keeps k, d, P and cellsPerWord.
  shardedFp: (c, shards) => {
    const { cells, cellsPerWord } = wordLocalShard(c, { lanes: 1, shards });
    return stablePoint({ ...c, cells, cellsPerWord }).fp;
  },
  // The inserts to the stable point: a cell never set since the clear is the only trace of the
  // start, probability (1 − 1/cells)^n, about e^-20 after 20 per cell of a bank (each insert sets
  // one cell of every bank). `lanes analyze` measures there (before the family's capacity,
  // ⌊cells·ln 2⌋, what P = 0 is sized for, which would be before the stable point).
  steadyInserts: (c) => 20 * c.cells,
};
