/**
 * Configs of the classic set filters: the schema (zod) and the derivation of everything the
 * model and the RTL need from explicit sizes (a config with `items` and `fp` instead of sizes
 * goes to the planner first, ./planner.ts). Every invalid field gives a one-line error naming it.
 *
 * Sizes per `filter`:
 * - basic:       `k` hashes into one bit vector of `bits` = m bits (a power of two: one memory
 *                addressed by a log2(m)-bit hash);
 * - partitioned: `k` slices of `sliceBits` bits (a power of two; or `bits` = m with m/k a power
 *                of two), one memory per slice;
 * - blocked:     `bits` = m (a power of two) in blocks of `blockBits` = B bits, `bitsPerBlock` = b
 *                bits set per key, one in each of the block's b parts of B/b bits (b < B, both
 *                powers of two); one memory per part.
 * `items` (optional): the n the filter is sized for (capacity); by default the n at which a probe
 * meets a fill of 1/2 (analysis.ts `halfFillItems`). `wordBits`: the block RAM word (default 16,
 * narrower when a column is smaller than two such words).
 */
import { z } from 'zod';
import { DEFAULT_TARGET } from '../../device/index.js';
import { configSchema, DEFAULT_TAG_BITS, failer, parseConfig, pow2, positiveInt } from '../schema.js';
import type { Fail } from '../types.js';
import { halfFillItems } from './analysis.js';
import { bloomLayout } from './model.js';
import type { BloomDerived, BloomVariant } from './types.js';

export const MAX_K = 64;
export const MAX_BITS = 1 << 26;
const MAX_WORD_BITS = 4096;
/** The default block RAM word: one SB_RAM40_4K port (256 x 16). */
export const DEFAULT_WORD_BITS = 16;

export const bloomSchema = configSchema(['basic', 'partitioned', 'blocked'] as const, {
  k: positiveInt(MAX_K).optional(),
  bits: positiveInt(MAX_BITS).optional(),
  sliceBits: pow2(MAX_BITS).optional(),
  blockBits: pow2(MAX_WORD_BITS).optional(),
  bitsPerBlock: pow2(MAX_K).optional(),
  /** The n the filter is sized for; with `fp` and no sizes: the planner's intent. */
  items: positiveInt(MAX_BITS).optional(),
  fp: z.number().gt(0).lt(1).optional(),
  wordBits: pow2(MAX_WORD_BITS).optional(),
});

export type BloomConfig = z.infer<typeof bloomSchema>;

const isPow2 = (x: number): boolean => Number.isInteger(Math.log2(x));

/** A written config with explicit sizes -> the derived config (ConfigError naming the field). */
export function deriveBloom(raw: unknown, source = 'config'): BloomDerived {
  return deriveBloomSizes(parseConfig(bloomSchema, raw, source), failer(source));
}

/** Fields that belong to other variants. */
const ONLY: Record<string, BloomVariant[]> = {
  k: ['basic', 'partitioned'],
  sliceBits: ['partitioned'],
  blockBits: ['blocked'],
  bitsPerBlock: ['blocked'],
};

/** Explicit sizes -> the derived config (the family's `derive`). */
export function deriveBloomSizes(cfg: Readonly<Record<string, unknown>>, fail: Fail): BloomDerived {
  const c = cfg as BloomConfig;
  const filter = c.filter;
  for (const [field, variants] of Object.entries(ONLY))
    if (cfg[field] !== undefined && !variants.includes(filter))
      fail(
        field,
        field === 'k'
          ? 'not for filter blocked: give bitsPerBlock (b, the bits set per key)'
          : `only for filter ${variants.join(', ')}`,
      );
  if (c.fp !== undefined)
    fail('fp', 'only with items and without sizes (then the planner chooses them); give the sizes or items and fp');
  let k: number;
  let m: number;
  let B = 1;
  if (filter === 'blocked') {
    if (c.blockBits === undefined || c.bitsPerBlock === undefined)
      return fail(
        c.blockBits === undefined ? 'blockBits' : 'bitsPerBlock',
        'required for filter blocked (or items and fp for the planner)',
      );
    B = c.blockBits;
    k = c.bitsPerBlock;
    if (B < 2) fail('blockBits', 'must be at least 2');
    if (k > B) fail('bitsPerBlock', `must not exceed blockBits (${B})`);
    if (k === B) fail('bitsPerBlock', `must be smaller than blockBits (${B}): parts of at least 2 bits`);
    if (c.bits === undefined) return fail('bits', 'required: the filter size m in bits (or items and fp)');
    m = c.bits;
    if (!isPow2(m)) fail('bits', `must be a power of two (m/B blocks addressed by a hash), got ${m}`);
    if (m < 2 * B) fail('bits', `must hold at least two blocks of ${B} bits`);
  } else {
    if (c.k === undefined) return fail('k', 'give k and the size, or items and fp for the planner');
    k = c.k;
    if (filter === 'basic') {
      if (c.bits === undefined) return fail('bits', 'required: the bit vector size m (or items and fp)');
      m = c.bits;
      if (!isPow2(m)) fail('bits', `must be a power of two (one memory addressed by a log2(m)-bit hash), got ${m}`);
      if (m < 2) fail('bits', 'must be at least 2');
      if (k > m) fail('k', `must not exceed bits (${m})`);
    } else {
      if (c.sliceBits !== undefined && c.bits !== undefined)
        fail('bits', 'give sliceBits or bits, not both (bits = k · sliceBits)');
      if (c.sliceBits === undefined && c.bits === undefined)
        return fail('sliceBits', 'give sliceBits (or bits = k · sliceBits), or items and fp for the planner');
      if (c.sliceBits !== undefined) {
        if (c.sliceBits < 2) fail('sliceBits', 'must be at least 2');
        m = k * c.sliceBits;
        if (m > MAX_BITS) fail('sliceBits', `k · sliceBits = ${m} exceeds ${MAX_BITS} bits`);
      } else {
        m = c.bits!;
        if (k * 2 > m) fail('k', `too large for bits = ${m}: k slices of at least 2 bits need k <= ${m / 2}`);
        if (m % k !== 0 || !isPow2(m / k))
          fail('bits', `must be k times a power of two (k = ${k} slices of m/k bits), got ${m}; or give sliceBits`);
      }
    }
  }
  const columns = filter === 'basic' ? 1 : k;
  const columnBits = m / columns;
  const maxWord = Math.min(MAX_WORD_BITS, columnBits / 2); // a memory needs depth >= 2
  if (c.wordBits !== undefined && c.wordBits > maxWord)
    fail('wordBits', `must be at most ${maxWord} (a column of ${columnBits} bits needs depth >= 2)`);
  const wordBits = c.wordBits ?? Math.min(DEFAULT_WORD_BITS, maxWord);
  const d: BloomDerived = {
    name: c.name,
    filter,
    k,
    bits: m,
    blockBits: B,
    keyBits: c.keyBits,
    seed: c.seed,
    items: 0,
    wordBits,
    tagBits: c.tagBits ?? DEFAULT_TAG_BITS,
    columns,
    columnBits,
    columnDepth: columnBits / wordBits,
    initiationInterval: filter === 'basic' && k >= 2 ? k : 1,
    target: c.target ?? DEFAULT_TARGET,
  };
  d.items = c.items ?? Math.max(1, halfFillItems(d));
  bloomLayout(d); // asserts the power-of-two relations
  return d;
}
