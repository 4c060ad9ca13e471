/**
 * Bitwise Bloom filters on N lanes over S shards (src/lanes/): each shard is this family's
 * pipeline with 1/S of the counters of every level (every bank of level i holds m_i/(k_i·S)),
 * the same levels, widths, k_i and word, built `direct` (no response queue). The filter does not
 * age: no ticks, no time; a clear goes to every shard.
 *
 * Every op touches the key's counters only — its k_i counters at every level, including those an
 * add zeroes when it carries — and the shard hash sends all of them to the key's shard, so the
 * sharded filter is the family's filter whose index at every level is (shard(x), h_ij(x)): the
 * carries, the zeroing of shared counters and the saturation happen inside one shard, exactly as
 * on one lane among the keys that share it.
 *
 * False positives: the family's rate (analysis.ts, `fp`) is for n distinct items added once, which
 * only ever add into level 0 (a_i = ⌊1/2^{W_i}⌋ = 0 above it), so it is level 0's partitioned
 * rate. A probe's shard took Binomial(n, 1/S) of them into banks of b' = m_0/(k_0·S) counters, so
 * the sharded rate is the mean of (1 − (1 − 1/b')^N)^{k_0} over that binomial: above the one-lane
 * rate where it is convex in N (k_0 >= 2 at the usual fills), equal to it for k_0 = 1 (E[(1 −
 * 1/b')^N] = (1 − 1/b)^n). The one-lane `fp` takes a cell's load as Poisson, the binomial's limit
 * (1 − e^{−n/b})^{k_0}; a shard's banks are S times smaller, and there that limit understates the
 * fill by a relative 1/(2b') in the exponent — on bitwise_l3_w448 at 64 shards (b' = 32) a rate
 * 4 % low, where sharding adds 13 % — so the shard's rate is the exact binomial form (the family's
 * `fpPartitioned0`, "the hardware's"), and for S = 1 the family's own `fp`. Like the one-lane
 * analysis it leaves out the carries collisions cause (a key whose k_0 counters others raised to
 * the maximum carries when added): rare unless w_0 = 1.
 *
 * No merging of identical keys: an add counts multiplicity — adding a key twice leaves its counters
 * one count higher than adding it once (and may carry), so a merged group would lose counts;
 * `merge` is left out and the lane layer refuses it.
 */
import { binomialExpectation } from '../../analysis/stats.js';
import { type Fail, type LaneSupport, SHARD_FILL_WHY, shardsHint } from '../types.js';
import { falsePositives, partitionedFp, uniformProfile } from './analysis.js';
import { deriveBitwiseSizes } from './config.js';
import type { BitwiseDerived } from './types.js';

/**
 * One shard: 1/S of the counters of every level. A bank keeps at least two counters (a block RAM
 * of two words); the family's packing (model.ts, lanesFor: at most half a bank per word) then
 * packs fewer counters per word when 1/S of a bank holds fewer than two words of the one-lane
 * packing, down to one counter in each of two words.
 */
function shardConfig(c: BitwiseDerived, o: { lanes: number; shards: number }, fail: Fail): BitwiseDerived {
  const S = o.shards;
  // The level with the fewest counters per bank decides (the first of them on a tie).
  const smallest = c.levels.reduce((a, L, i) => (L.bankCells < c.levels[a]!.bankCells ? i : a), 0);
  const bank = c.levels[smallest]!.bankCells;
  if (bank / S < 2) {
    // (Below S, so within the shards field's own bound.)
    const most = 2 ** Math.floor(Math.log2(Math.max(1, bank / 2)));
    fail(
      'shards',
      `${S} shards leave ${bank}/${S} counters per bank of level ${smallest} (levels.${smallest}) in a shard;` +
        ` a shard needs at least 2 (${shardsHint(most, o.lanes, 'larger levels')})`,
    );
  }
  const written: Record<string, unknown> = {
    name: `${c.name}_shard`,
    filter: c.filter,
    levels: c.levels.map((L) => ({ cells: L.cells / S, width: L.width, k: L.k })),
    wordBits: c.wordBits,
    items: Math.max(1, Math.ceil(c.items / S)),
    keyBits: c.keyBits,
    seed: c.seed,
    target: c.target,
  };
  const shardFail: Fail = (field, message) =>
    fail(field, `(shard of ${c.levels.map((L) => L.cells / S).join('+')} counters) ${message}`);
  // The key mix (if any) inside each shard, as on one lane; the shard hash takes the key as given.
  return { ...deriveBitwiseSizes(written, shardFail), keyMix: c.keyMix, direct: true };
}

export const bitwiseLanes: LaneSupport<BitwiseDerived> = {
  broadcastOps: ['clear'],
  shard: shardConfig,
  shardedFp: (c, shards) => {
    if (shards === 1) return falsePositives(c.levels, uniformProfile(c.items, 1)).total;
    const L = c.levels[0]!;
    const cells = L.cells / shards;
    return binomialExpectation(c.items, 1 / shards, (n) => partitionedFp(cells, L.k, n));
  },
  // Two differences, said apart: the shard's binomial share (none with k_0 = 1) and the exact form
  // against the one-lane analysis's Poisson limit (the rest, largest in small shards' banks).
  shardedFpWhy: (c, shards) =>
    `${SHARD_FILL_WHY}, and the shard's rate is level 0's exact partitioned form on banks of ` +
    `${c.levels[0]!.cells / (c.levels[0]!.k * shards)} counters, where the one-lane analysis takes the Poisson limit`,
};
