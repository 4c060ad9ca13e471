/**
 * Counting and spectral filters (MS, MI, RM) on N lanes over S shards (src/lanes/): each shard is
 * this family's pipeline with 1/S of the counters of every bank (RM: of its secondary banks too),
 * the same k, counter width, algorithm and remove op, built `direct` (no response queue). A
 * counting filter does not age: no ticks, no time; a clear goes to every shard.
 *
 * Every op touches the key's counters only — its k primary counters and, for RM, its k secondary
 * ones — and all of them live in the key's shard, so the sharded filter is the family's filter
 * whose index is (shard(x), h_i(x)) in every bank, primary and secondary: RM shards as simply as
 * MS and MI (each shard is a whole RM filter, its secondary beside its primary).
 *
 * A probe's shard took Binomial(n, 1/S) of n distinct inserts into c/S counters per bank, so the
 * false-positive rate is the mean of the one-shard rate (1 − (1 − S/c)^N)^k over that binomial:
 * above the one-lane rate where the rate is convex in the inserts (k >= 2 at the usual fills),
 * equal to it for k = 1 (E[(1 − S/c)^N] = (1 − 1/c)^n over the binomial). Like the one-lane analysis it is exact for MS without removes, an
 * upper bound for MI, and RM's primary filter's rate.
 *
 * No merging of identical keys: inserting a key twice adds 2 to its counters where one insert
 * adds 1 (a merged group would lose counts), so `merge` is left out and the lane layer refuses it.
 */
import { binomialExpectation } from '../../analysis/stats.js';
import { type Fail, type LaneSupport, shardsHint } from '../types.js';
import { countingFp } from './analysis.js';
import { deriveCountingSizes } from './config.js';
import type { CountingDerived } from './types.js';

/**
 * One shard: 1/S of the counters per bank. A bank keeps at least two words; when 1/S of it holds
 * fewer than two words of the one-lane packing, the shard packs fewer counters per word (a
 * narrower word, the same bits), down to one counter in each of two words.
 */
function shardConfig(c: CountingDerived, o: { lanes: number; shards: number }, fail: Fail): CountingDerived {
  const S = o.shards;
  const rm = c.algorithm === 'rm';
  // RM's secondary banks are at most the primary's size: the smaller of the two decides.
  const smallest = rm ? c.secondaryCellsPerBank : c.cellsPerBank;
  const cells = smallest / S;
  if (cells < 2) {
    // (Below S, so within the shards field's own bound.)
    const most = 2 ** Math.floor(Math.log2(Math.max(1, smallest / 2)));
    fail(
      'shards',
      `${S} shards leave ${smallest}/${S} counters per ${rm ? 'secondary ' : ''}bank of the ${c.algorithm} filter` +
        ` in a shard; a shard needs at least 2 (${shardsHint(most, o.lanes, 'a larger filter')})`,
    );
  }
  const perWord = Math.min(c.lanes, cells / 2);
  const written: Record<string, unknown> = {
    name: `${c.name}_shard`,
    filter: c.filter,
    ...(c.filter === 'spectral' ? { algorithm: c.algorithm } : {}),
    k: c.k,
    counterBits: c.counterBits,
    cellsPerBank: c.cellsPerBank / S,
    ...(rm ? { secondaryCellsPerBank: c.secondaryCellsPerBank / S } : {}),
    wordBits: perWord * c.counterBits,
    remove: c.remove,
    items: Math.max(1, Math.ceil(c.items / S)),
    keyBits: c.keyBits,
    seed: c.seed,
    target: c.target,
  };
  const shardFail: Fail = (field, message) =>
    fail(field, `(shard of ${c.cellsPerBank / S} counters per bank) ${message}`);
  // The key mix (if any) inside each shard, as on one lane; the shard hash takes the key as given.
  return { ...deriveCountingSizes(written, shardFail), keyMix: c.keyMix, direct: true };
}

export const countingLanes: LaneSupport<CountingDerived> = {
  broadcastOps: ['clear'],
  shard: shardConfig,
  shardedFp: (c, shards) => {
    if (shards === 1) return countingFp(c.items, c.cellsPerBank, c.k);
    const cells = c.cellsPerBank / shards;
    return binomialExpectation(c.items, 1 / shards, (n) => countingFp(n, cells, c.k));
  },
};
