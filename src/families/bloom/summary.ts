/**
 * One config's analytics (what `bloomforge analyze` prints): the false-positive rate after the n
 * inserts the filter is sized for — exact (see analysis.ts for what exact means per variant) and
 * the manual's e^{−kn/m} approximation — the optimal k for m and n, the bits per item the
 * manual's formula asks for this fp, the fill a probe meets, and the accesses of a query.
 */
import type { Analysis } from '../types.js';
import {
  accessesFalse,
  bitsPerItemFor,
  fpApprox,
  fpBlockedPoisson,
  fpExact,
  optimalBitsPerBlock,
  optimalK,
  probeFill,
} from './analysis.js';
import type { BloomDerived } from './types.js';

export interface BloomAnalysis {
  filter: string;
  k: number;
  m: number;
  B: number | null;
  n: number;
  /** Keys guaranteed to be found: every key since the last clear (JSON prints Infinity as null). */
  window: number;
  slack: number;
  fp: number;
  fpApprox: number;
  /** Blocked: the same with a Poisson block load (APBF paper §6); null otherwise. */
  fpPoisson: number | null;
  /** Manual: k* = ⌊(m/n) ln 2⌋ (blocked: the power-of-two b with the lowest exact fp). */
  optimalK: number;
  /** Fraction of set bits a probe meets after n inserts (expected). */
  fill: number;
  bitsPerElement: number;
  /** Manual: the bits per item a basic filter at k* needs for this fp, −ln p/(ln 2)^2. */
  bitsPerItemAtOptimalK: number;
  /** Memory reads of a query that returns true / false, reading probes in order and stopping at the first 0. */
  accessesTrue: number;
  accessesFalse: number;
  /** Cycles per op of the pipeline (the basic filter: k). */
  initiationInterval: number;
}

export function analyzeBloom(c: BloomDerived): BloomAnalysis {
  const n = c.items;
  const r = probeFill(c, n);
  const blocked = c.filter === 'blocked';
  const fp = fpExact(c, n);
  return {
    filter: c.filter,
    k: c.k,
    m: c.bits,
    B: blocked ? c.blockBits : null,
    n,
    window: Infinity,
    slack: 0,
    fp,
    fpApprox: fpApprox(c.bits, c.k, n),
    fpPoisson: blocked ? fpBlockedPoisson(c.bits, c.blockBits, c.k, n) : null,
    optimalK: blocked ? optimalBitsPerBlock(c.bits, c.blockBits, n) : optimalK(c.bits, n),
    fill: r,
    bitsPerElement: c.bits / n,
    bitsPerItemAtOptimalK: bitsPerItemFor(fp),
    // A block is one access: its b parts are read together (one word, or b columns in one cycle).
    accessesTrue: blocked ? 1 : c.k,
    accessesFalse: blocked ? 1 : accessesFalse(r, c.k),
    initiationInterval: c.initiationInterval,
  };
}

/** `analyze`: the figures as JSON values and as text. */
export function bloomAnalysis(c: BloomDerived): Analysis {
  const a = analyzeBloom(c);
  const kName = a.filter === 'blocked' ? 'b' : 'k';
  return {
    values: a,
    headline: `${a.filter} ${kName}=${a.k} m=${a.m}${a.B !== null ? ` B=${a.B}` : ''} n=${a.n}`,
    lines: [
      `no false negatives: every key inserted since the last clear is found; sized for n = ${a.n} items`,
      `fp after n inserts ${a.fp.toExponential(4)} (exact), ${a.fpApprox.toExponential(4)} ((1 - e^(-${kName}n/m))^${kName})` +
        (a.fpPoisson !== null ? `, ${a.fpPoisson.toExponential(4)} (Poisson block load)` : ''),
      `probe fill ${a.fill.toFixed(4)}; optimal ${kName} for m and n: ${a.optimalK}`,
      `bits per item ${a.bitsPerElement.toFixed(2)} (a basic filter at k* needs ${a.bitsPerItemAtOptimalK.toFixed(2)} for this fp)`,
      `query accesses: true ${a.accessesTrue.toFixed(2)}, false ${a.accessesFalse.toFixed(2)} (reading stops at the first 0)`,
      `pipeline: ${a.initiationInterval === 1 ? 'one op per cycle' : `one op per ${a.initiationInterval} cycles (k micro-ops on one memory)`}`,
    ],
  };
}
