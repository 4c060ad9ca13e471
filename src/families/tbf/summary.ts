/**
 * One TBF/BTBF config's analytics (what `bloomforge analyze` prints for it): the standard
 * false-positive rate on a stream of distinct keys (src/analysis/tbf.ts), bits per item of the
 * window (the paper's timers·bits/w, and the hardware's with its second timer copy and mark bits),
 * expected timer accesses of a query that returns false when reading stops at the first expired
 * timer (the hardware reads all k in parallel), the slack of the block counter, and the scan
 * figures.
 *
 * Accesses: for a never-inserted key at block counter b each timer reads live with probability
 * ℓ_b = 1 − (untouched over ⌈(w−b)/B⌉·B + b inserts). A query that returns false reads up to its
 * first expired timer, so E[accesses | false] = Σ_b Σ_{j=1..k} j·ℓ_b^(j−1)(1 − ℓ_b) / Σ_b (1 − ℓ_b^k)
 * (b uniform over 0..B−1) — the mean over false answers, as the APBF family reports it; the mean
 * over every never-inserted key, false positives (k accesses) included, is `accessesNegative`.
 *
 * Slack (§3.2.2): the items of one insertion block share their timestamp, so when the block's
 * last item is the oldest of the window (I_x = w − 1) its first item, inserted B − 1 insertions
 * earlier (I_x = w + B − 2), is reported present too: keys up to B − 1 insertions beyond the window
 * may be found (and no older one: expiry at λ ≥ ⌈(w − b)/B⌉ + 1 bounds I_x ≤ w + B − 2).
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
  /** B − 1: keys up to B − 1 insertions older than the window may be reported present (§3.2.2). */
  slack: number;
  npws: null;
  fp: number;
  fpBasis: string;
  /** Probability that one timer of a never-inserted key reads live (mean over b). */
  liveFraction: number;
  /** Timers read by a query answered false, stopping at the first expired one. */
  accessesFalse: number;
  /** The same over every never-inserted key (false positives read all k). */
  accessesNegative: number;
  bitsPerElement: number;
  bitsPerElementHardware: number;
  scanTimersPerInsert: number;
  scanSweepInserts: number;
}

/** Expected timer accesses of a never-inserted key's query (stopping at the first expired timer). */
export function tbfAccesses(c: TbfDerived): { accessesFalse: number; accessesNegative: number; liveFraction: number } {
  const s = btbfShape(c);
  let live = 0;
  let falseWeight = 0; // Σ_b P(false | b)
  let falseAccesses = 0; // Σ_b E[accesses · 1{false} | b]
  let allAccesses = 0; // Σ_b E[accesses | b]
  for (let b = 0; b < c.blockSize; b++) {
    const l = 1 - untouched(s, (j) => j, lambdaMax(s, b) * c.blockSize + b);
    live += l;
    for (let j = 1; j <= c.k; j++) {
      falseAccesses += j * l ** (j - 1) * (1 - l);
      allAccesses += l ** (j - 1);
    }
    falseWeight += 1 - l ** c.k;
  }
  return {
    accessesFalse: falseAccesses / falseWeight,
    accessesNegative: allAccesses / c.blockSize,
    liveFraction: live / c.blockSize,
  };
}

export function analyzeTbf(c: TbfDerived): TbfAnalysis {
  const s = btbfShape(c);
  const acc = tbfAccesses(c);
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
    slack: c.blockSize - 1,
    npws: null,
    fp: standardFalsePositiveRate(s),
    fpBasis: 'stream of distinct keys, mean over the block counter b',
    liveFraction: acc.liveFraction,
    accessesFalse: acc.accessesFalse,
    accessesNegative: acc.accessesNegative,
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
      t.slack === 0
        ? `window w = ${t.window} (exact: no slack)`
        : `window w = ${t.window}, slack ${t.slack} (a block of B = ${t.blockSize} shares a timestamp: keys up to B − 1 inserts older may be found, §3.2.2)`,
      `standard fp ${t.fp.toExponential(4)} (${t.fpBasis})`,
      `query accesses, stopping at the first expired timer: ${t.accessesFalse.toFixed(4)} for a false answer, ${t.accessesNegative.toFixed(4)} over every never-inserted key`,
      `bits per element ${t.bitsPerElement.toFixed(2)} (${t.bitsPerElementHardware.toFixed(2)} in the hardware: two timer copies and mark bits)`,
      `expiry scan: ${t.scanTimersPerInsert} timers per insert, a sweep every ${t.scanSweepInserts} inserts`,
    ],
  };
}
