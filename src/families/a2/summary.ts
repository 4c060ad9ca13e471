/**
 * One config's analytics (what `bloomforge analyze` prints): fp at the worst moment (just
 * before a swap), the seed's both-halves-full form, the long-run mean, the window and slack, the
 * seed's optimal k and κ for this memory, bits per element.
 */
import type { Analysis } from '../types.js';
import { fpBothFull, fpMean, fpSeed, fpWorst, halfFill, halfFp, optimalK, optimalKappa } from './analysis.js';
import type { A2Derived } from './types.js';

export interface A2Analysis {
  filter: string;
  k: number;
  kappa: number;
  bankBits: number;
  m: number;
  window: number;
  slack: number;
  /** fp just before a swap (active κ − 1 keys, standby κ). */
  fp: number;
  /** The seed's 1 − (1 − φ(κ))², both halves at κ keys (an upper bound). */
  fpBothFull: number;
  /** The seed's form with the plain fill 1 − (1 − 1/b)^κ (no skip rule). */
  fpSeed: number;
  /** A full half's bank fill, skip rule included. */
  fill: number;
  /** fp averaged over a half's life (active 0..κ−1 keys, standby κ). */
  fpMean: number;
  /** φ(κ): one full half. */
  halfFp: number;
  /** The seed's k_a* for this config's fp, and κ_a* for its m and k. */
  optimalK: number;
  optimalKappa: number;
  accessesFalse: number;
  bitsPerElement: number;
  bitsPerElementHardware: number;
}

export function analyzeA2(c: A2Derived): A2Analysis {
  const fp = fpWorst(c.k, c.bankBits, c.kappa);
  return {
    filter: c.filter,
    k: c.k,
    kappa: c.kappa,
    bankBits: c.bankBits,
    m: c.bits,
    window: c.window,
    slack: c.slack,
    fp,
    fpBothFull: fpBothFull(c.k, c.bankBits, c.kappa),
    fpSeed: fpSeed(c.k, c.bankBits, c.kappa),
    fill: halfFill(c.k, c.bankBits, c.kappa),
    fpMean: fpMean(c.k, c.bankBits, c.kappa),
    halfFp: halfFp(c.k, c.bankBits, c.kappa),
    optimalK: optimalK(fpBothFull(c.k, c.bankBits, c.kappa)),
    optimalKappa: optimalKappa(c.bits, c.k),
    // The hardware reads all 2k banks of the halves for every query.
    accessesFalse: 2 * c.k,
    bitsPerElement: c.bits / c.window,
    bitsPerElementHardware: (1.5 * c.bits) / c.window,
  };
}

/** `analyze`: the figures as JSON values and as text. */
export function a2Analysis(c: A2Derived): Analysis {
  const a = analyzeA2(c);
  return {
    values: a,
    headline: `a2 k=${a.k} kappa=${a.kappa} bankBits=${a.bankBits} m=${a.m}`,
    lines: [
      `window w = ${a.window} (the last κ inserts, duplicates included), slack s = ${a.slack} distinct inserts`,
      `fp just before a swap ${a.fp.toExponential(4)}; both halves full (the seed's 1-(1-φ)^2) ${a.fpBothFull.toExponential(4)}; mean ${a.fpMean.toExponential(4)}`,
      `the seed's form with the plain fill 1-(1-1/b)^κ: ${a.fpSeed.toExponential(4)} (the skip rule fills a half to ${a.fill.toFixed(4)})`,
      `one full half φ(κ) ${a.halfFp.toExponential(4)}`,
      `the seed's optimum for m = ${a.m}: k* = ${a.optimalK} (for fp ${a.fpBothFull.toExponential(3)}), κ* = floor(m/(2k)·ln2) = ${a.optimalKappa}`,
      `bits per element ${a.bitsPerElement.toFixed(2)} (${a.bitsPerElementHardware.toFixed(2)} with the third set)`,
    ],
  };
}
