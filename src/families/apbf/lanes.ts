/**
 * APBF/APBBF on N lanes over S shards (src/lanes/): each shard is this family's pipeline with
 * m/S bits per segment, the same k, l and g, and the dispatcher's global generation count.
 *
 * Zero-stall aging with lanes: a generation of g inserts can pass in ceil(g/N) cycles (N inserts
 * per cycle) plus the cycle of the tick, so a retired bank must be cleared within
 * spares·ceil(g/N) cycles: depth + CLEAR_DELAY + 1 <= spares·ceil(g/N), with the shard's own
 * column depth (1/S of the single-lane one). The spares are chosen for that bound.
 */
import { CLEAR_DELAY } from '../../stages/clear.js';
import { type Fail, type LaneSupport, shardsHint } from '../types.js';
import { deriveApbfSizes, MAX_SPARES } from './config.js';
import { shardedFalsePositiveRate } from './analysis.js';
import type { ApbfDerived } from './types.js';

/** Spare banks a shard needs so that clearing keeps up with `lanes` inserts per cycle. */
function laneSpares(depth: number, generation: number, lanes: number): number {
  return Math.max(1, Math.ceil((depth + CLEAR_DELAY + 1) / Math.ceil(generation / lanes)));
}

function shardConfig(c: ApbfDerived, o: { lanes: number; shards: number }, fail: Fail): ApbfDerived {
  const m = c.segmentBits / o.shards;
  if (!Number.isInteger(m) || m < 2 * c.blockBits)
    fail(
      'shards',
      `${o.shards} shards leave ${c.segmentBits}/${o.shards} bits per segment; a shard needs at least two ` +
        `blocks of ${c.blockBits} bits (${shardsHint(c.segmentBits / (2 * c.blockBits), o.lanes, 'a larger sliceBits')})`,
    );
  const written: Record<string, unknown> = {
    name: `${c.name}_shard`,
    filter: c.filter,
    k: c.k,
    l: c.l,
    sliceBits: m,
    generation: c.generation,
    keyBits: c.keyBits,
    seed: c.seed,
    target: c.target,
    ...(c.filter === 'apbbf' ? { blockBits: c.blockBits, bitsPerBlock: c.bitsPerBlock } : {}),
  };
  // The shard's word: the single-lane one where the shard's columns are deep enough (depth >= 2).
  const columnBits = m / c.bitsPerBlock;
  const W = Math.min(c.wordBits, columnBits / 2);
  const depth = columnBits / W;
  const spares = laneSpares(depth, c.generation, o.lanes);
  if (spares > MAX_SPARES)
    fail(
      'lanes',
      `with ${o.lanes} lanes a generation of g = ${c.generation} inserts can pass in ${Math.ceil(c.generation / o.lanes)} ` +
        `cycles, too few to clear a shard's bank of ${depth} words (${depth + CLEAR_DELAY + 1} cycles) with at most ` +
        `${MAX_SPARES} spares; use fewer lanes, more shards or a larger generation`,
    );
  const shardFail: Fail = (field, message) => fail(field, `(shard of ${m} bits per segment) ${message}`);
  // No response queue in a shard: the dispatcher takes every response as it comes.
  return { ...deriveApbfSizes({ ...written, wordBits: W, spares }, shardFail), keyMix: c.keyMix, direct: true };
}

export const apbfLanes: LaneSupport<ApbfDerived> = {
  period: (c) => c.generation,
  tickOp: 'tick',
  tickReady: 'tick_ok',
  broadcastOps: ['tick', 'clear'],
  shard: shardConfig,
  // An insert answers 0 (src/families/streamKit.ts's membership handlers) and sets bits, so a
  // second insert of a key in the same generation changes no bit.
  merge: { query: 'query', insert: 'insert', testAndInsert: 'testAndInsert' },
  shardedFp: (c, shards) =>
    shardedFalsePositiveRate(
      { k: c.k, l: c.l, m: c.segmentBits, g: c.generation, B: c.blockBits, b: c.bitsPerBlock },
      shards,
      40_000,
    ),
};
