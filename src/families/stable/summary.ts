/**
 * One config's analytics (what `bloomforge analyze` prints): the stable point and the
 * false-positive rate there for the word-local variant, beside Deng & Rafiei's formulas for an
 * SBF of the same m, k, d and P; the probability that a duplicate is still found by age; the P
 * Deng & Rafiei's formula gives for the same fp, and the smallest integer P of the variant that
 * reaches it.
 */
import type { Analysis } from '../types.js';
import {
  ageFound,
  drFalsePositive,
  drOptimalP,
  drStablePoint,
  foundCurve,
  smallestP,
  stablePoint,
  variantAsDengRafiei,
} from './analysis.js';
import type { StableDerived } from './types.js';

export interface StableAnalysis {
  filter: string;
  k: number;
  d: number;
  max: number;
  cells: number;
  m: number;
  P: number;
  cellsPerWord: number;
  /** Variant: stable fraction of zeros and fp (./analysis.ts). */
  stableZeros: number;
  fp: number;
  /** Deng & Rafiei's P0 and FPS for an SBF of the same m, k, d, P (decrements anywhere). */
  drStableZeros: number;
  drFp: number;
  /** The variant's formula in Deng & Rafiei's form (m := k·cellsPerWord): equal to stableZeros/fp when k divides P. */
  variantAsDr: { zeros: number; fp: number };
  /** Probability that a key inserted j inserts ago is still reported, at a few ages. */
  found: { j: number; found: number }[];
  /** Largest ages at which a duplicate is found with probability >= 0.99, 0.9, 0.5 (null: never falls). */
  age99: number | null;
  age90: number | null;
  age50: number | null;
  /** Deng & Rafiei's P for this fp with this m (real), and the variant's smallest integer P for it. */
  drOptimalP: number;
  variantP: number | null;
  window: null;
  slack: number;
  accessesFalse: number;
  /** Memory bits per key of age up to age50 (the ages found with probability >= 1/2). */
  bitsPerElement: number;
}

export function analyzeStable(c: StableDerived): StableAnalysis {
  const max = 2 ** c.d - 1;
  const m = c.k * c.cells;
  const sp = stablePoint(c);
  const age50 = ageFound(c, 0.5);
  const ages = age50 === null ? [0, 1000, 10000] : [0, 1, 2, 4].map((f) => Math.round((f * age50) / 2));
  return {
    filter: c.filter,
    k: c.k,
    d: c.d,
    max,
    cells: c.cells,
    m,
    P: c.P,
    cellsPerWord: c.cellsPerWord,
    stableZeros: sp.zeros,
    fp: sp.fp,
    drStableZeros: drStablePoint(c.P, c.k, m, max),
    drFp: drFalsePositive(c.P, c.k, m, max),
    variantAsDr: variantAsDengRafiei(c),
    found: foundCurve(c, ages),
    age99: ageFound(c, 0.99),
    age90: ageFound(c, 0.9),
    age50,
    drOptimalP: c.P === 0 ? 0 : drOptimalP(sp.fp, c.k, m, max),
    variantP: c.P === 0 ? null : smallestP(c, sp.fp * (1 + 1e-9)),
    window: null,
    slack: 0,
    accessesFalse: c.k,
    bitsPerElement: (m * c.d) / Math.max(1, age50 ?? Infinity),
  };
}

/** `analyze`: the figures as JSON values and as text. */
export function stableAnalysis(c: StableDerived): Analysis {
  const a = analyzeStable(c);
  const age = (x: number | null): string => (x === null ? 'never falls (P = 0)' : String(x));
  return {
    values: a,
    headline: `stable k=${a.k} d=${a.d} cells=${a.cells} P=${a.P} (m=${a.m}, ${a.cellsPerWord} cells/word)`,
    lines: [
      `stable point (word-local variant): zeros ${a.stableZeros.toFixed(5)}, fp ${a.fp.toExponential(4)}`,
      `Deng & Rafiei SBF of the same m, k, d, P: zeros ${a.drStableZeros.toFixed(5)}, fp ${a.drFp.toExponential(4)}`,
      `variant as Deng & Rafiei with m := k·cellsPerWord = ${a.k * a.cellsPerWord}: zeros ${a.variantAsDr.zeros.toFixed(5)}, fp ${a.variantAsDr.fp.toExponential(4)}`,
      `duplicate found with probability >= 0.99 up to age ${age(a.age99)}, >= 0.9 up to ${age(a.age90)}, >= 0.5 up to ${age(a.age50)}`,
      `found by age: ${a.found.map((f) => `j=${f.j}: ${f.found.toFixed(4)}`).join(', ')}`,
      `P for this fp: Deng & Rafiei (decrements anywhere) ${a.drOptimalP.toFixed(2)}, variant (integer) ${a.variantP ?? '-'}`,
      `false negatives by design: a key is evicted once its cells are decremented to 0 (no window)`,
      `bits per element ${a.bitsPerElement.toFixed(2)} (memory over the ages found with probability >= 1/2)`,
    ],
  };
}
