/**
 * The set filters (basic, partitioned, blocked) on N lanes over S shards (src/lanes/): each shard
 * is this family's pipeline with m/S bits (a partitioned filter's slices, a blocked filter's
 * blocks, a basic filter's vector, each split S ways), the same k (or b), built `direct` (no
 * response queue). A set filter does not age: no ticks, no time; a clear goes to every shard.
 *
 * As a filter the sharded one is the family's filter whose index is (shard(x), h_i(x)): a probe's
 * shard took Binomial(n, 1/S) of n inserts into m/S bits, so its false-positive rate is the mean
 * of the one-shard rate over that binomial. For basic and partitioned filters that is above the
 * one-lane rate where the rate is convex in the number of inserts (k >= 2 up to a fill of
 * 1 − 1/k: the usual sizes), below it where it is concave (a fill past 1 − 1/k), and equal to it
 * for k = 1 (the binomial's generating function: E[(1 − S/m)^N] = (1 − 1/m)^n); for a
 * blocked filter it is the one-lane rate, its block (shard, block in the shard) being a uniform
 * choice among the m/B blocks either way.
 */
import { binomialExpectation } from '../../analysis/stats.js';
import { type Fail, type LaneSupport, shardsHint } from '../types.js';
import { fpExact } from './analysis.js';
import { deriveBloomSizes } from './config.js';
import type { BloomDerived } from './types.js';

function shardConfig(c: BloomDerived, o: { lanes: number; shards: number }, fail: Fail): BloomDerived {
  const S = o.shards;
  const columnBits = c.columnBits / S;
  // Two words of at least one bit per column (a block RAM of depth >= 2), and for a blocked
  // filter two blocks per shard.
  const least = c.filter === 'blocked' ? (2 * c.blockBits) / c.k : Math.max(2, c.filter === 'basic' ? c.k : 2);
  if (!Number.isInteger(columnBits) || columnBits < least) {
    // (Below S, so within the shards field's own bound.)
    const most = 2 ** Math.floor(Math.log2(Math.max(1, c.columnBits / least)));
    fail(
      'shards',
      `${S} shards leave ${c.columnBits}/${S} bits per memory of the ${c.filter} filter; a shard needs at least ${least}` +
        ` (${shardsHint(most, o.lanes, 'a larger filter')})`,
    );
  }
  const written: Record<string, unknown> = {
    name: `${c.name}_shard`,
    filter: c.filter,
    ...(c.filter === 'blocked' ? { blockBits: c.blockBits, bitsPerBlock: c.k } : { k: c.k }),
    ...(c.filter === 'partitioned' ? { sliceBits: columnBits } : { bits: c.bits / S }),
    items: Math.max(1, Math.ceil(c.items / S)),
    wordBits: Math.min(c.wordBits, columnBits / 2),
    keyBits: c.keyBits,
    seed: c.seed,
    target: c.target,
  };
  const shardFail: Fail = (field, message) => fail(field, `(shard of ${c.bits / S} bits) ${message}`);
  // The key mix (if any) inside each shard, as on one lane; the shard hash takes the key as given.
  return { ...deriveBloomSizes(written, shardFail), keyMix: c.keyMix, direct: true };
}

export const bloomLanes: LaneSupport<BloomDerived> = {
  broadcastOps: ['clear'],
  shard: shardConfig,
  // The basic filter: k micro-ops on one memory per op.
  interval: (c) => c.initiationInterval,
  // An insert answers 0 (src/families/streamKit.ts's membership handlers) and sets bits, so a
  // second insert of a key changes no bit.
  merge: { query: 'query', insert: 'insert', testAndInsert: 'testAndInsert' },
  shardedFp: (c, shards) => {
    if (c.filter === 'blocked' || shards === 1) return fpExact(c, c.items);
    const shard = { ...c, bits: c.bits / shards };
    return binomialExpectation(c.items, 1 / shards, (n) => fpExact(shard, n));
  },
  // The lane tests and benches take the partitioned preset (one op per cycle; the basic filter
  // takes one per k cycles in each shard).
  benchPreset: 'bloom_partitioned_k4_4k',
};
