/**
 * Bitwise Bloom filter configs: the schema (zod) and the derivation of every parameter the model
 * and the RTL need. A config lists the levels V_0..V_{l−1} of the libBf manual ("Bitwise"), each
 * with m_i cells of w_i bits and k_i hashes:
 *   {"filter":"bitwise","levels":[{"cells":8192,"width":4,"k":4},{"cells":2048,"width":4,"k":4}],
 *    "keyBits":64,"seed":1}
 * Optional: `wordBits` (the block RAM word counters are packed in; default the target's widest
 * block RAM port, at most 64), `items` (the distinct items the filter is sized for; default
 * ⌊(m_0/k_0)·ln 2⌋, the load at which level 0's banks are half non-zero), `tagBits`, `target`.
 *
 * Rules (each broken one is a one-line error naming the field):
 *   - 1 ≤ l ≤ 8 levels; 1 ≤ k_i ≤ 16; m_i a multiple of k_i with m_i/k_i a power of two ≥ 2
 *     (each hash indexes a bank of its own);
 *   - 1 ≤ w_i ≤ wordBits ≤ the target's widest block RAM port (16 bits on iCE40): a counter never
 *     spans two words or two block RAMs side by side; Σ w_i ≤ 64 (the count port).
 * Packing: lanes_i = the largest power of two with lanes_i·w_i ≤ wordBits (and at most half a
 * bank, so a bank has at least two words); a bank is a block RAM of m_i/(k_i·lanes_i) words of
 * lanes_i·w_i bits.
 */
import { z } from 'zod';
import { DEFAULT_TARGET, maxBramWidth } from '../../device/index.js';
import { configSchema, DEFAULT_TAG_BITS, failer, parseConfig, positiveInt } from '../schema.js';
import type { Fail } from '../types.js';
import { bitwiseLayout } from './model.js';
import type { BitwiseDerived } from './types.js';

export const MAX_LEVELS = 8;
export const MAX_K = 16;
export const MAX_WIDTH = 32;
/** Widest count (Σ w_i): the out_count port. */
export const MAX_COUNT_BITS = 64;
export const MAX_WORD_BITS = 64;
export const MAX_BANK_CELLS = 1 << 24;

const levelSchema = z
  .object({
    cells: positiveInt(MAX_K * MAX_BANK_CELLS),
    width: positiveInt(MAX_WIDTH),
    k: positiveInt(MAX_K),
  })
  .strict();

export const bitwiseSchema = configSchema(['bitwise'] as const, {
  levels: z.array(levelSchema).min(1).max(MAX_LEVELS),
  wordBits: positiveInt(MAX_WORD_BITS).optional(),
  items: positiveInt(1 << 26).optional(),
});

export type BitwiseConfig = z.infer<typeof bitwiseSchema>;

/** A written config with explicit sizes -> the derived config (ConfigError naming the field). */
export function deriveBitwise(raw: unknown, source = 'config'): BitwiseDerived {
  return deriveBitwiseSizes(parseConfig(bitwiseSchema, raw, source), failer(source));
}

/** The default `items`: level 0's banks half non-zero, n = ⌊(m_0/k_0)·ln 2⌋ (at least 1). */
export function defaultItems(cells: number, k: number): number {
  return Math.max(1, Math.floor((cells / k) * Math.LN2));
}

/** Explicit sizes -> the derived config (the family's `derive`). */
export function deriveBitwiseSizes(cfg: Readonly<Record<string, unknown>>, fail: Fail): BitwiseDerived {
  const c = cfg as BitwiseConfig;
  const target = c.target ?? DEFAULT_TARGET;
  const port = Math.min(MAX_WORD_BITS, maxBramWidth(target));
  if (c.wordBits !== undefined && c.wordBits > port)
    fail('wordBits', `must be at most ${port}, the widest block RAM port of ${target}`);
  const wordBits = c.wordBits ?? port;
  let countBits = 0;
  c.levels.forEach((L, i) => {
    const at = `levels.${i}`;
    if (L.cells % L.k !== 0) fail(`${at}.cells`, `must be a multiple of k = ${L.k} (k banks of cells/k counters)`);
    const bank = L.cells / L.k;
    if (bank < 2 || !Number.isInteger(Math.log2(bank)))
      fail(`${at}.cells`, `cells/k = ${bank} must be a power of two >= 2 (one bank of counters per hash)`);
    if (bank > MAX_BANK_CELLS)
      fail(`${at}.cells`, `cells/k = ${bank} is more than ${MAX_BANK_CELLS} counters per bank`);
    if (L.width > wordBits)
      fail(
        `${at}.width`,
        `${L.width}-bit cells are wider than the ${wordBits}-bit block RAM word` +
          (c.wordBits === undefined ? ` of ${target}` : ' (wordBits)'),
      );
    countBits += L.width;
  });
  if (countBits > MAX_COUNT_BITS)
    fail('levels', `the widths add up to ${countBits} bits; the count is at most ${MAX_COUNT_BITS} bits`);
  const levels = bitwiseLayout(c.levels, wordBits);
  return {
    name: c.name,
    filter: 'bitwise',
    levels,
    keyBits: c.keyBits,
    seed: c.seed,
    wordBits,
    tagBits: c.tagBits ?? DEFAULT_TAG_BITS,
    items: c.items ?? defaultItems(c.levels[0]!.cells, c.levels[0]!.k),
    countBits,
    target,
  };
}
