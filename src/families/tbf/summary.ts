/**
 * One TBF/BTBF config's analytics (what `bloomforge analyze` prints for it): the standard
 * false-positive rate on a stream of distinct keys (src/analysis/tbf.ts), bits per item of the
 * window (the paper's timers·bits/w, and the hardware's with its second timer copy and mark bits),
 * expected timer accesses of a query that returns false when reading stops at the first expired
 * timer (the hardware reads all k in parallel), and the scan figures.
 */
import type { Analysis } from '../types.js';
import type { TbfDerived } from './types.js';
import { lambdaMax, standardFalsePositiveRate, tbfBitsPerItem, untouched } from './analysis.js';
import { btbfShape } from './decision.js';

export interface TbfAnalysis {
  filter: string;
  k: number;
  timersPerBank: number;
  timerBits: number;
  window: number;
  blockSize: number;
  padding: number;
  tOmega: number;
  /** The standard answer is exact on the window: no slack, no NPWS. */
  slack: number;
  npws: null;
  fp: number;
  fpBasis: string;
  /** Probability that one timer of a never-inserted key reads live (mean over b). */
  liveFraction: number;
  accessesFalse: number;
  bitsPerElement: number;
  bitsPerElementHardware: number;
  scanTimersPerInsert: number;
  scanSweepInserts: number;
}

export function analyzeTbf(c: TbfDerived): TbfAnalysis {
  const s = btbfShape(c);
  let live = 0;
  for (let b = 0; b < c.blockSize; b++) live += 1 - untouched(s, (j) => j, lambdaMax(s, b) * c.blockSize + b);
  live /= c.blockSize;
  let acc = 0;
  for (let i = 0; i < c.k; i++) acc += live ** i;
  const timers = c.k * c.timersPerBank;
  return {
    filter: c.filter,
    k: c.k,
    timersPerBank: c.timersPerBank,
    timerBits: c.timerBits,
    window: c.window,
    blockSize: c.blockSize,
    padding: c.padding,
    tOmega: c.tOmega,
    slack: 0,
    npws: null,
    fp: standardFalsePositiveRate(s),
    fpBasis: 'stream of distinct keys, mean over the block counter b',
    liveFraction: live,
    accessesFalse: acc,
    bitsPerElement: tbfBitsPerItem(timers, c.timerBits, c.window),
    bitsPerElementHardware: (timers * (2 * (c.timerBits + 1) + 1)) / c.window,
    scanTimersPerInsert: c.k * c.timersPerWord,
    scanSweepInserts: c.wordsPerBank,
  };
}

/** `analyze`: the figures as JSON values and as text. */
export function tbfAnalysis(c: TbfDerived): Analysis {
  const t = analyzeTbf(c);
  return {
    values: t,
    headline: `${t.filter} k=${t.k} timers=${t.timersPerBank}x${t.timerBits}b B=${t.blockSize} P=${t.padding} TΩ=${t.tOmega}`,
    lines: [
      `window w = ${t.window} (exact: no slack)`,
      `standard fp ${t.fp.toExponential(4)} (${t.fpBasis})`,
      `query accesses (false, stopping at the first expired timer) ${t.accessesFalse.toFixed(2)}`,
      `bits per element ${t.bitsPerElement.toFixed(2)} (${t.bitsPerElementHardware.toFixed(2)} in the hardware: two timer copies and mark bits)`,
      `expiry scan: ${t.scanTimersPerInsert} timers per insert, a sweep every ${t.scanSweepInserts} inserts`,
    ],
  };
}
