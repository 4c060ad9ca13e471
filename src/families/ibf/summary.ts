/**
 * One config's analytics (what `bloomforge analyze` prints): the stable point (fraction of zero
 * cells, fp) of the pipeline's variant from the one-cell chain of ./analysis.ts, and for each
 * importance the ages up to which a duplicate is found with probability ≥ 0.9 and ≥ 0.5 — the
 * importance-aware part: under Imp-insert, important keys are forgotten later (Boraskar §5.1).
 */
import type { Analysis } from '../types.js';
import { foundByAge, stablePoint } from './analysis.js';
import type { IbfDerived } from './types.js';

export interface IbfAnalysis {
  filter: string;
  insert: string;
  k: number;
  max: number;
  d: number;
  cells: number;
  m: number;
  P: number;
  cellsPerWord: number;
  /** Null: an Imp-insert chain with MAX above MAX_SOLVED (not solved here). */
  stableZeros: number | null;
  fp: number;
  /** Per importance 1..max (at most 16 listed, spread over the range): ages found with probability ≥ 0.9 and ≥ 0.5. */
  byImportance: { importance: number; age90: number | null; age50: number | null }[];
  /** False when the chain was too long to step here (then the ages are null). */
  agesComputed: boolean;
  window: null;
  slack: number;
  accessesFalse: number;
  /** Memory bits per key of age up to the mean age50. */
  bitsPerElement: number;
}

/** At most 16 importance values spread over 1..max. */
export function sampleImportances(max: number): number[] {
  if (max <= 16) return Array.from({ length: max }, (_, i) => i + 1);
  return Array.from({ length: 16 }, (_, i) => 1 + Math.round((i * (max - 1)) / 15));
}

export function analyzeIbf(c: IbfDerived): IbfAnalysis {
  const sp = stablePoint(c);
  const horizon = c.P === 0 ? 0 : Math.min(2_000_000, Math.ceil((40 * (c.max + 1) * c.cells) / Math.max(1, c.P / c.k)));
  // The chain is stepped per insert over MAX + 1 states in k banks: skipped when that is too long.
  const affordable = (c.max + 1) * horizon * c.k <= 5e7;
  const byImportance = sampleImportances(c.max).map((v) => {
    if (c.P === 0 || !affordable) return { importance: v, age90: null, age50: null };
    const { ageAt } = foundByAge(c, v, [], [0.9, 0.5], horizon);
    return { importance: v, age90: ageAt[0]!, age50: ageAt[1]! };
  });
  const a50 = byImportance.map((b) => b.age50).filter((x): x is number => x !== null);
  // Ages never reached (the stable point keeps a key found with probability above the level):
  // the memory is counted over the filter's half-fill capacity, cells·ln 2, instead.
  const meanAge50 = a50.length ? a50.reduce((a, b) => a + b, 0) / a50.length : c.cells * Math.LN2;
  return {
    filter: c.filter,
    insert: c.insert,
    k: c.k,
    max: c.max,
    d: c.d,
    cells: c.cells,
    m: c.k * c.cells,
    P: c.P,
    cellsPerWord: c.cellsPerWord,
    stableZeros: sp?.zeros ?? null,
    // Without a solved chain, the fp is bounded by 1 (reported as 1).
    fp: sp?.fp ?? 1,
    byImportance,
    agesComputed: affordable,
    window: null,
    slack: 0,
    accessesFalse: c.k,
    bitsPerElement: (c.k * c.cells * c.d) / Math.max(1, meanAge50),
  };
}

export function ibfAnalysis(c: IbfDerived): Analysis {
  const a = analyzeIbf(c);
  const age = (x: number | null): string => (x === null ? 'any age (the stable point stays above it)' : String(x));
  return {
    values: a,
    headline: `ibf ${a.insert === 'imp' ? 'Imp-insert' : 'M-insert'} k=${a.k} MAX=${a.max} cells=${a.cells} P=${a.P} (n=${a.m}, ${a.d}-bit cells, ${a.cellsPerWord} cells/word)`,
    lines: [
      a.stableZeros === null
        ? 'stable point: not computed (Imp-insert with MAX above 256: the chain is not solved here)'
        : `stable point (one-cell Markov chain, word-local random delete${a.insert === 'imp' ? ', importance uniform on 1..MAX' : ''}): zeros ${a.stableZeros.toFixed(5)}, fp ${a.fp.toExponential(4)}`,
      ...(a.P === 0
        ? ['P = 0: nothing is deleted, every inserted key stays found (fp grows to 1)']
        : !a.agesComputed
          ? ['ages by importance: not computed (MAX too large for the chain to be stepped here)']
          : a.byImportance.map(
              (b) =>
                `importance ${b.importance}: found with probability >= 0.9 up to age ${age(b.age90)}, >= 0.5 up to ${age(b.age50)}`,
            )),
      'false negatives by design: a key is forgotten once a delete takes one of its cells to 0 (no window)',
      `bits per element ${a.bitsPerElement.toFixed(2)} (memory over the mean age found with probability >= 1/2)`,
    ],
  };
}
