/**
 * Configs of the persistent Bloom filters: the schema (zod) and the derivation of the sizes the
 * model and the RTL need. Every invalid field is a one-line error naming it.
 *
 * - `filter`: `pbf2` (one Bloom filter per level, heights 0..D, §4.2), `sbf` (one filter over
 *   (key, time) pairs, §3.1), or `pbf1` — refused: PBF-1 is a model only (README: its route 3
 *   makes a query's probe count depend on the answers, and its 2T/g filters do not fit a part).
 * - `horizon`: T, a power of two, 2 .. 65536: times are 0 .. T − 1 (D = log2 T bits).
 * - `k`: hash functions (slices) per level, 1 .. 16 (§7's k_max).
 * - `sliceBits` (every level the same: the default equal split of §4.1/§5) or `levelSliceBits`
 *   (one per level, heights 0..D: e.g. a β-opt allocation rounded to powers of two): bits per
 *   slice, powers of two (one block RAM addressed by a hash), at least 2.
 * - `items` (distinct pairs the analytics assume, default the n at which the leaf level's probes
 *   meet fill 1/2), `queryLength` (the |q| `analyze` reports, default min(128, T)), `wordBits`.
 * - `items` + `fp` (+ `queryLength`) without sizes: the planner chooses k and sliceBits.
 */
import { z } from 'zod';
import { DEFAULT_TARGET } from '../../device/index.js';
import { configSchema, DEFAULT_TAG_BITS, pow2, positiveInt } from '../schema.js';
import type { Fail } from '../types.js';
import { K_MAX, LN2 } from './analysis.js';
import type { LevelSpec, PbfDerived } from './types.js';

export const MAX_HORIZON = 1 << 16;
export const MAX_SLICE_BITS = 1 << 20;
export const DEFAULT_WORD_BITS = 16;

export const pbfSchema = configSchema(['pbf2', 'sbf', 'pbf1'] as const, {
  horizon: z.number().int().min(1).max(MAX_HORIZON).optional(),
  k: positiveInt(64).optional(),
  sliceBits: z.number().int().min(1).max(MAX_SLICE_BITS).optional(),
  levelSliceBits: z.array(z.number().int().min(1).max(MAX_SLICE_BITS)).optional(),
  items: positiveInt(1 << 26).optional(),
  queryLength: positiveInt(MAX_HORIZON).optional(),
  fp: z.number().gt(0).lt(1).optional(),
  wordBits: pow2(4096).optional(),
});

export type PbfConfig = z.infer<typeof pbfSchema>;

const isPow2 = (x: number): boolean => Number.isInteger(Math.log2(x));

/** Explicit sizes -> the derived config (the family's `derive`). */
export function derivePbf(cfg: Readonly<Record<string, unknown>>, fail: Fail): PbfDerived {
  const c = cfg as PbfConfig;
  if (c.filter === 'pbf1')
    fail(
      'filter',
      'pbf1 is a model only (experiments pbf-*): its route 3 sends up to 2g SBF probes only when a leaf answers 1, and its 2T/g filters do not map to block RAMs; use pbf2 or sbf',
    );
  if (c.fp !== undefined)
    fail('fp', 'only with items and without sizes (then the planner chooses them); give the sizes or items and fp');
  if (c.horizon === undefined) return fail('horizon', 'required: the time horizon T (times 0 .. T-1), a power of two');
  const T = c.horizon;
  if (!isPow2(T) || T < 2) fail('horizon', `must be a power of two >= 2 (times are D-bit fields), got ${T}`);
  const D = Math.log2(T);
  if (c.k === undefined) return fail('k', 'required: hash functions per level (or items and fp for the planner)');
  if (c.k > K_MAX) fail('k', `must be at most ${K_MAX} (the paper's k_max, §7)`);
  const k = c.k;
  const heights = c.filter === 'sbf' ? [0] : Array.from({ length: D + 1 }, (_, h) => h);
  let slices: number[];
  if (c.sliceBits !== undefined && c.levelSliceBits !== undefined)
    fail('levelSliceBits', 'give sliceBits (every level) or levelSliceBits (one per level), not both');
  if (c.levelSliceBits !== undefined) {
    if (c.levelSliceBits.length !== heights.length)
      fail(
        'levelSliceBits',
        `needs ${heights.length} entries (${c.filter === 'sbf' ? 'the one level' : `heights 0..${D}`}), got ${c.levelSliceBits.length}`,
      );
    slices = c.levelSliceBits;
  } else if (c.sliceBits !== undefined) slices = heights.map(() => c.sliceBits!);
  else return fail('sliceBits', 'required: bits per slice (or levelSliceBits, or items and fp for the planner)');
  slices.forEach((s, i) => {
    const field = c.levelSliceBits ? 'levelSliceBits' : 'sliceBits';
    if (!isPow2(s)) fail(field, `must be a power of two (one block RAM addressed by a hash), got ${s} (level ${i})`);
    if (s < 2) fail(field, `must be at least 2, got ${s} (level ${i})`);
  });
  const minSlice = Math.min(...slices);
  const maxWord = Math.min(4096, minSlice / 2);
  if (c.wordBits !== undefined && c.wordBits > maxWord)
    fail('wordBits', `must be at most ${maxWord} (a slice of ${minSlice} bits needs depth >= 2)`);
  const wordBits = c.wordBits ?? Math.min(DEFAULT_WORD_BITS, maxWord);
  if (c.queryLength !== undefined && c.queryLength > T) fail('queryLength', `must be at most the horizon ${T}`);
  const levels: LevelSpec[] = heights.map((h, i) => ({ height: h, k, sliceBits: slices[i]! }));
  // Default n: the leaf level's probes meet fill 1/2 (k·d/s = ln 2 per slice: d = s ln 2).
  const items = c.items ?? Math.max(1, Math.floor(slices[0]! * LN2));
  return {
    name: c.name,
    filter: c.filter,
    horizon: T,
    timeBits: D,
    k,
    levels,
    items,
    queryLength: c.queryLength ?? Math.min(128, T),
    wordBits,
    keyBits: c.keyBits,
    tagBits: c.tagBits ?? DEFAULT_TAG_BITS,
    seed: c.seed,
    target: c.target ?? DEFAULT_TARGET,
  };
}
