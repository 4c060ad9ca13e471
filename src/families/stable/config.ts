/**
 * Stable Bloom filter configs: the schema (zod) and the derivation of what the model and the RTL
 * need from explicit sizes (a config with `window` and `fp` instead of P goes to the planner
 * first, ./planner.ts). Every invalid field gives a one-line error naming it.
 *
 *   {"filter":"stable","k":3,"d":2,"cells":2048,"P":6,"keyBits":64,"seed":1}
 *
 * - k banks of `cells` cells of d bits (m = k·cells); `cellsPerWord` cells per word (default:
 *   the most, a power of two, that fit the target's widest block RAM word, at most 32 and at most
 *   cells/2 so a bank has two words or more). A word may span up to MAX_WORD_BRAMS block RAMs
 *   side by side: wider words allow more decrements per insert (P ≤ k·cellsPerWord), which a
 *   low fp needs (Deng & Rafiei's FPS depends on P, k and d, not on m);
 * - P decrements per insert in total (Deng & Rafiei's P), P_i = ⌊P/k⌋ (+1 for the first P mod k
 *   banks) in bank i, all in the word the insert writes there: so P ≤ k·cellsPerWord, and P > 0
 *   needs two cells per word or more (with one, the only cell decremented is the one the insert
 *   sets to Max at once: the filter would never forget).
 */
import { z } from 'zod';
import { DEFAULT_TARGET, maxBramWidth } from '../../device/index.js';
import { MAX_CELLS_PER_WORD, wordCellsPerWord } from '../../model/wordCellBank.js';
import { configSchema, DEFAULT_TAG_BITS, failer, parseConfig, pow2, positiveInt } from '../schema.js';
import type { Fail } from '../types.js';
import type { StableDerived } from './types.js';

export { MAX_CELLS_PER_WORD, MAX_WORD_BRAMS } from '../../model/wordCellBank.js';

export const stableSchema = configSchema(['stable'] as const, {
  k: positiveInt(32).optional(),
  d: z.number().int().min(1).max(64).optional(),
  cells: pow2(1 << 24).optional(),
  P: z
    .number()
    .int()
    .min(0)
    .max(1 << 20)
    .optional(),
  cellsPerWord: pow2(MAX_CELLS_PER_WORD).optional(),
  /** Planner intent (instead of P and the sizes): the age to find duplicates at, and the fp. */
  window: positiveInt(1 << 24).optional(),
  fp: z.number().gt(0).lt(1).optional(),
  findProbability: z.number().gt(0).lt(1).optional(),
});

export type StableConfig = z.infer<typeof stableSchema>;

/** A written config with explicit sizes -> the derived config (ConfigError naming the field). */
export function deriveStable(raw: unknown, source = 'config'): StableDerived {
  return deriveStableSizes(parseConfig(stableSchema, raw, source), failer(source));
}

/** Explicit sizes -> the derived config (the family's `derive`). */
export function deriveStableSizes(cfg: Readonly<Record<string, unknown>>, fail: Fail): StableDerived {
  const c = cfg as StableConfig;
  if (c.window !== undefined || c.fp !== undefined || c.findProbability !== undefined) {
    const f = c.window !== undefined ? 'window' : c.fp !== undefined ? 'fp' : 'findProbability';
    fail(f, 'only without P (then the planner chooses k, d, cells and P)');
  }
  for (const f of ['k', 'd', 'cells', 'P'] as const)
    if (c[f] === undefined) fail(f, 'give k, d, cells and P, or window and fp for the planner');
  const k = c.k!;
  const d = c.d!;
  const cells = c.cells!;
  const P = c.P!;
  const target = c.target ?? DEFAULT_TARGET;
  const maxWord = maxBramWidth(target);
  if (d > maxWord) fail('d', `cells of ${d} bits are wider than a ${target} block RAM word (${maxWord} bits)`);
  const C = wordCellsPerWord({ d, cells, given: c.cellsPerWord, target }, fail);
  if (P > 0 && C === 1)
    fail(
      c.cellsPerWord !== undefined ? 'cellsPerWord' : 'd',
      `with one cell per word an insert can decrement only the cell it sets to Max, so P = ${P} would never age the filter; ` +
        (c.cellsPerWord !== undefined
          ? 'use cellsPerWord >= 2'
          : `give cellsPerWord >= 2 or use d <= ${Math.floor(maxWord / 2)}`),
    );
  if (P > k * C)
    fail(
      'P',
      `${P} is larger than the ${k * C} cells of the k = ${k} words an insert writes (k·cellsPerWord): ` +
        'the decrements are word-local; use P <= ' +
        `${k * C}`,
    );
  return {
    name: c.name,
    filter: 'stable',
    k,
    d,
    cells,
    cellsPerWord: C,
    P,
    keyBits: c.keyBits,
    seed: c.seed,
    tagBits: c.tagBits ?? DEFAULT_TAG_BITS,
    target,
    wordBits: C * d,
    depth: cells / C,
  };
}
