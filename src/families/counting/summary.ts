/**
 * One config's analytics (what `bloomforge analyze` prints): the false-positive rate at the n
 * items the config is sized for, the probability of a counter overflow (Fan et al.'s bound and
 * the exact binomial), the expected count error of MS, bits per element.
 */
import type { Analysis } from '../types.js';
import { countingFp, expectedMsErrorDistinct, overflowFigures, type OverflowFigures } from './analysis.js';
import type { CountingDerived } from './types.js';

export interface CountingAnalysis {
  filter: string;
  algorithm: string;
  k: number;
  w: number;
  cellsPerBank: number;
  items: number;
  /** (1 − (1 − 1/c)^n)^k: exact for MS, an upper bound for MI; RM's primary filter. */
  fp: number;
  window: number | null;
  slack: number;
  /** Counters read by a query (every bank in parallel; RM reads its secondary's too). */
  accessesFalse: number;
  bitsPerElement: number;
  overflow: OverflowFigures;
  /** E[estimate − 1] of a key inserted once among n distinct keys inserted once (MS). */
  msError: number;
}

export function analyzeCounting(c: CountingDerived): CountingAnalysis {
  const n = c.items;
  const banks = c.algorithm === 'rm' ? 2 * c.k : c.k;
  const bits = c.k * (c.cellsPerBank + c.secondaryCellsPerBank) * c.counterBits;
  return {
    filter: c.filter,
    algorithm: c.algorithm,
    k: c.k,
    w: c.counterBits,
    cellsPerBank: c.cellsPerBank,
    items: n,
    fp: countingFp(n, c.cellsPerBank, c.k),
    window: c.remove ? null : Infinity,
    slack: 0,
    accessesFalse: banks,
    bitsPerElement: bits / n,
    overflow: overflowFigures(n, c.cellsPerBank, c.k, c.counterBits),
    msError: expectedMsErrorDistinct(n, c.cellsPerBank, c.k, c.counterBits),
  };
}

/** `analyze`: the figures as JSON values and as text. */
export function countingAnalysis(c: CountingDerived): Analysis {
  const a = analyzeCounting(c);
  const o = a.overflow;
  const alg = { ms: 'minimum selection', mi: 'minimum increase', rm: 'recurring minimum' }[c.algorithm];
  return {
    values: a,
    headline:
      `${c.filter} ${c.algorithm} k=${c.k} w=${c.counterBits} c=${c.cellsPerBank}` +
      (c.algorithm === 'rm' ? ` secondary c=${c.secondaryCellsPerBank}` : '') +
      ` n=${a.items}${c.remove ? ' +remove' : ''}`,
    lines: [
      `${alg}; ${c.lanes} counters per ${c.wordBits}-bit word, ${c.depth} words per bank`,
      `fp at n = ${a.items}: ${a.fp.toExponential(4)} ((1 - (1 - 1/c)^n)^k${c.algorithm === 'mi' ? ', an upper bound for MI' : c.algorithm === 'rm' ? ", the primary filter's" : ''})`,
      `counter overflow (a count reaching 2^w = ${2 ** c.counterBits}): Fan et al.'s bound m(e·n·k/(2^w·m))^(2^w) = ` +
        `${o.fanBound.toExponential(3)}; exact Pr(Binomial(n, 1/c) >= 2^w) = ${o.counterTail.toExponential(3)} per counter, ` +
        `${o.expectedOverflowing.toExponential(3)} counters expected, union bound ${o.unionBound.toExponential(3)}`,
      `expected MS count error of a key inserted once among n distinct keys: ${a.msError.toExponential(4)}`,
      c.remove
        ? "no window: removes can create false negatives (removing a false positive decrements another key's counters)"
        : 'every key inserted since the last clear is found (no remove op; saturated counters stay saturated)',
      `bits per element ${a.bitsPerElement.toFixed(2)}, ${a.accessesFalse} counters read per query`,
    ],
  };
}
