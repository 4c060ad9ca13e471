/**
 * Importance-aware Bloom filter configs: the schema (zod) and the derivation of what the model
 * and the RTL need. Every invalid field gives a one-line error naming it.
 *
 *   {"filter":"ibf","insert":"imp","k":4,"max":4,"cells":4096,"P":4,"keyBits":64,"seed":1}
 *
 * - `insert`: "imp" (Imp-insert, Boraskar §5.1 Algorithm 2: the k cells take the item's
 *   importance) or "max" (M-insert, Algorithm 1: the k cells take MAX); default "imp".
 * - `delete`: the deletion scheme (§5.2). The pipeline builds "random" (Algorithm 3, in its
 *   word-local form, see ./model.ts), the default; "none" is "random" with P = 0. The
 *   importance-aware deletes ("probabilistic", "probabilisticP", "probabilisticVal", "minImp",
 *   "minImpPriority") choose cells over the whole array from a global view of every cell's value
 *   or cumulative importance at every insert: they are models (./schemes.ts, `experiment ibf-*`),
 *   and a config asking the pipeline for one is refused naming the field.
 * - k banks of `cells` cells of d = ⌈log2(max + 1)⌉ bits; `max` is the paper's M (MAX);
 *   `cellsPerWord` cells per block RAM word (default: the most, a power of two, that fit the
 *   widest block RAM word, at most 32 and at most cells/2); P deletes per insert in total (the
 *   paper's p), P_i in bank i, all in the word the insert writes: P ≤ k·cellsPerWord, and P > 0
 *   needs two cells per word or more.
 */
import { z } from 'zod';
import { DEFAULT_TARGET, maxBramWidth } from '../../device/index.js';
import { MAX_CELLS_PER_WORD, wordCellsPerWord } from '../../model/wordCellBank.js';
import { configSchema, DEFAULT_TAG_BITS, failer, parseConfig, pow2, positiveInt } from '../schema.js';
import type { Fail } from '../types.js';
import { cellBits } from './model.js';
import type { IbfDerived } from './types.js';

export { MAX_CELLS_PER_WORD, MAX_WORD_BRAMS } from '../../model/wordCellBank.js';

/** The deletion schemes of §5.2; only `random` (and `none`) map to one op per cycle. */
export const DELETE_SCHEMES = [
  'random',
  'none',
  'probabilistic',
  'probabilisticP',
  'probabilisticVal',
  'minImp',
  'minImpPriority',
] as const;

export const ibfSchema = configSchema(['ibf'] as const, {
  insert: z.enum(['imp', 'max']).optional(),
  delete: z.enum(DELETE_SCHEMES).optional(),
  k: positiveInt(32),
  max: positiveInt(0xffff),
  cells: pow2(1 << 24),
  P: z
    .number()
    .int()
    .min(0)
    .max(1 << 20),
  cellsPerWord: pow2(MAX_CELLS_PER_WORD).optional(),
});

export type IbfConfig = z.infer<typeof ibfSchema>;

export function deriveIbf(raw: unknown, source = 'config'): IbfDerived {
  return deriveIbfSizes(parseConfig(ibfSchema, raw, source), failer(source));
}

export function deriveIbfSizes(cfg: Readonly<Record<string, unknown>>, fail: Fail): IbfDerived {
  const c = cfg as IbfConfig;
  const scheme = c.delete ?? 'random';
  if (scheme !== 'random' && scheme !== 'none')
    fail(
      'delete',
      `'${scheme}' needs a global view of every cell at each insert (Boraskar §5.2): a model only ` +
        `(experiment ibf-*), not a pipeline; the pipeline builds 'random' (word-local) or 'none'`,
    );
  if (scheme === 'none' && c.P !== 0) fail('P', `delete 'none' deletes nothing: P must be 0, got ${c.P}`);
  const { k, max, cells, P } = c;
  const d = cellBits(max);
  const target = c.target ?? DEFAULT_TARGET;
  const maxWord = maxBramWidth(target);
  if (d > maxWord)
    fail('max', `cells of ${d} bits (max ${max}) are wider than a ${target} block RAM word (${maxWord} bits)`);
  const C = wordCellsPerWord({ d, cells, given: c.cellsPerWord, target }, fail);
  if (P > 0 && C === 1)
    fail(
      c.cellsPerWord !== undefined ? 'cellsPerWord' : 'max',
      `with one cell per word an insert can delete only the cell it sets, so P = ${P} would never delete; ` +
        (c.cellsPerWord !== undefined ? 'use cellsPerWord >= 2' : 'give cellsPerWord >= 2'),
    );
  if (P > k * C)
    fail(
      'P',
      `${P} is larger than the ${k * C} cells of the k = ${k} words an insert writes (deletes are word-local): use P <= ${k * C}`,
    );
  return {
    name: c.name,
    filter: 'ibf',
    insert: c.insert ?? 'imp',
    k,
    max,
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
