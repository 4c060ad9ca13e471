/**
 * Counting/spectral configs: the schema (zod) and the derivation of every parameter the model and
 * the RTL need from explicit sizes (a config with `items` and `fp` instead of k and cellsPerBank
 * goes to the planner first, ./planner.ts). Every invalid field gives a one-line error naming it.
 *
 * - `filter`: "counting" (minimum selection, MS) or "spectral" with `algorithm` "ms", "mi" or "rm".
 * - `k` hashes = banks (at most MAX_K), `counterBits` w (1 to 32, at most a block RAM word),
 *   `cellsPerBank` counters per bank (a power of two); RM: `secondaryCellsPerBank` (default
 *   cellsPerBank, at most it: the reset/clear sweep walks the primary's words).
 * - `wordBits`: the block RAM word the counters are packed into (default 16, or the target's widest
 *   block RAM port when a counter is wider than 16 bits); lanes = the largest power of two with
 *   lanes · w ≤ wordBits, and a bank needs at least two words.
 * - `remove` (default true for MS and RM, false for MI): the config has the remove op. MI refuses
 *   it: minimum increase increments only the minimal counters, so a remove would decrement
 *   counters the key never incremented — "the effect of deletes is significantly worse and the
 *   number of FNs becomes unbounded. Thus, the MI algorithm should not be used when removing of
 *   items" (libBf manual, Spectral, after Cohen & Matias §3.2).
 * - `items`: the distinct keys the filter is sized for (default ⌊c·ln 2⌋, the n at which each bank
 *   is half full: the classic optimum k = (m/n) ln 2 with m = k·c).
 */
import { z } from 'zod';
import { DEFAULT_TARGET, maxBramWidth, type Target } from '../../device/index.js';
import { configSchema, DEFAULT_TAG_BITS, failer, parseConfig, pow2, positiveInt } from '../schema.js';
import type { Fail } from '../types.js';
import type { Algorithm, CountingDerived } from './types.js';

/** Banks per filter at most (the pairwise-compare networks grow as k²). */
export const MAX_K = 16;
/** The widest counter (the model keeps counters in 32-bit words). */
export const MAX_COUNTER_BITS = 32;
/** The default block RAM word (one SB_RAM40_4K port). */
export const DEFAULT_WORD_BITS = 16;
/** The largest bank: 2^24 counters (the DSL's deepest memory times one lane). */
const MAX_CELLS = 1 << 24;

export const countingSchema = configSchema(['counting', 'spectral'] as const, {
  algorithm: z.enum(['ms', 'mi', 'rm']).optional(),
  k: positiveInt(MAX_K).optional(),
  counterBits: positiveInt(MAX_COUNTER_BITS).optional(),
  cellsPerBank: pow2(MAX_CELLS).optional(),
  secondaryCellsPerBank: pow2(MAX_CELLS).optional(),
  wordBits: positiveInt(72).optional(),
  remove: z.boolean().optional(),
  /** Sized mode: the keys the filter is sized for. Planner intent (with fp): the keys to hold. */
  items: positiveInt(1 << 30).optional(),
  fp: z.number().gt(0).lt(1).optional(),
});

export type CountingConfig = z.infer<typeof countingSchema>;

/** The lanes of a word: the largest power of two with lanes · w ≤ wordBits. */
export function lanesFor(wordBits: number, counterBits: number): number {
  return 2 ** Math.floor(Math.log2(Math.floor(wordBits / counterBits)));
}

/** The algorithm a config names (counting is MS). */
export function algorithmOf(cfg: Readonly<Record<string, unknown>>): Algorithm {
  return cfg.filter === 'counting' ? 'ms' : ((cfg.algorithm as Algorithm | undefined) ?? 'ms');
}

/** A written config with explicit sizes -> the derived config (ConfigError naming the field). */
export function deriveCounting(raw: unknown, source = 'config'): CountingDerived {
  return deriveCountingSizes(parseConfig(countingSchema, raw, source), failer(source));
}

/** Explicit sizes -> the derived config (the family's `derive`). */
export function deriveCountingSizes(cfg: Readonly<Record<string, unknown>>, fail: Fail): CountingDerived {
  const c = cfg as CountingConfig;
  if (c.filter === 'spectral' && c.algorithm === undefined)
    fail(
      'algorithm',
      'required for filter spectral: ms (minimum selection), mi (minimum increase) or rm (recurring minimum)',
    );
  if (c.filter === 'counting' && c.algorithm !== undefined && c.algorithm !== 'ms')
    fail('algorithm', `filter counting is minimum selection (ms); use filter spectral for ${c.algorithm}`);
  const algorithm = algorithmOf(c);
  if (c.fp !== undefined) fail('fp', 'only with items and without k and cellsPerBank (then the planner chooses them)');
  if (c.k === undefined) return fail('k', 'give k, counterBits and cellsPerBank, or items and fp for the planner');
  if (c.counterBits === undefined) return fail('counterBits', 'required (bits per counter, e.g. 4)');
  if (c.cellsPerBank === undefined) return fail('cellsPerBank', 'required (counters per bank, a power of two)');
  if (algorithm === 'mi' && c.remove === true)
    fail(
      'remove',
      'minimum increase (mi) takes no remove op: it increments only the minimal counters, so a remove would ' +
        'decrement counters the key never incremented and false negatives become unbounded (libBf manual, Spectral)',
    );
  const remove = c.remove ?? algorithm !== 'mi';
  if (algorithm !== 'rm' && c.secondaryCellsPerBank !== undefined)
    fail('secondaryCellsPerBank', "only for algorithm rm (the recurring minimum's secondary filter)");
  const target: Target = c.target ?? DEFAULT_TARGET;
  const bram = maxBramWidth(target);
  const w = c.counterBits;
  if (c.wordBits !== undefined && c.wordBits > bram)
    fail('wordBits', `must be at most ${bram} (the widest block RAM port on ${target})`);
  if (w > bram)
    fail('counterBits', `a counter of ${w} bits is wider than a block RAM word (${bram} bits on ${target})`);
  const W = c.wordBits ?? (w <= DEFAULT_WORD_BITS ? DEFAULT_WORD_BITS : bram);
  if (w > W) fail('counterBits', `a counter of ${w} bits is wider than the block RAM word (wordBits = ${W})`);
  const lanes = lanesFor(W, w);
  const cells = c.cellsPerBank;
  if (cells < 2 * lanes)
    fail('cellsPerBank', `must be at least ${2 * lanes}: a bank needs two words of ${lanes} counters of ${w} bits`);
  const secondary = algorithm === 'rm' ? (c.secondaryCellsPerBank ?? cells) : 0;
  if (algorithm === 'rm') {
    if (secondary < 2 * lanes)
      fail('secondaryCellsPerBank', `must be at least ${2 * lanes}: a bank needs two words of ${lanes} counters`);
    if (secondary > cells)
      fail(
        'secondaryCellsPerBank',
        `must be at most cellsPerBank (${cells}): the clear sweep walks the primary's words`,
      );
  }
  const d: CountingDerived = {
    name: c.name,
    filter: c.filter,
    algorithm,
    k: c.k,
    counterBits: w,
    cellsPerBank: cells,
    secondaryCellsPerBank: secondary,
    lanes,
    remove,
    keyBits: c.keyBits,
    seed: c.seed,
    tagBits: c.tagBits ?? DEFAULT_TAG_BITS,
    wordBits: lanes * w,
    depth: cells / lanes,
    secondaryDepth: secondary / lanes,
    items: c.items ?? Math.max(1, Math.floor(cells * Math.LN2)),
    target,
  };
  return d;
}
