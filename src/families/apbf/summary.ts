/**
 * One config's analytics (what `bloomforge analyze` prints): the false-positive rate at the worst
 * moment (just before a shift) with the fill ratios the config really reaches — and, labelled,
 * with the paper's idealised ratios — query accesses, window, slack, peak NPWS, bits per element.
 */
import type { Analysis } from '../types.js';
import type { ApbfDerived } from './types.js';
import {
  halfFillLoad,
  accessesFalse,
  accessesFalsePositive,
  accessesWindow,
  falsePositiveRate,
  idealFillRatios,
  peakNpwsRate,
  realFillRatios,
  segmentRate,
} from './analysis.js';

export interface ApbfAnalysis {
  filter: string;
  k: number;
  l: number;
  m: number;
  g: number;
  B: number;
  b: number;
  window: number;
  slack: number;
  /** False-positive rate just before a shift, at the fill ratios this config reaches. */
  fp: number;
  fpBasis: string;
  /** The same with the paper's idealised fill ratios j/(2k) (APBF) or half-fill loads (APBBF). */
  fpIdealised: number;
  accessesFalse: number;
  accessesFalsePositive: number;
  accessesWindow: number;
  npws: number;
  /** Bits of the k+l live segments per element of the window (spares not counted). */
  bitsPerElement: number;
  /** Including the hardware's spare banks. */
  bitsPerElementHardware: number;
  /** APBBF: window relative to an APBF (k·b, l·b) of the same memory (Table 3 "cap."). */
  capacityVsApbf: number | null;
}

export function analyzeApbf(c: ApbfDerived): ApbfAnalysis {
  const { k, l, blockBits: B, bitsPerBlock: b, segmentBits: m, generation: g } = c;
  const r = realFillRatios(k, l, m, g, B, b);
  const blocked = B > 1;
  const ideal = blocked
    ? Array.from({ length: k + l }, (_, i) =>
        segmentRate((Math.min(i + 1, k) * (1 << 20) * halfFillLoad(B, b)) / k, (1 << 20) * B, B, b),
      )
    : idealFillRatios(k, l);
  return {
    filter: c.filter,
    k,
    l,
    m,
    g,
    B,
    b,
    window: c.window,
    slack: c.slack,
    fp: falsePositiveRate(r, k, l),
    fpBasis: `segment rates after j·g inserts, j = 1..k (m = ${m}, g = ${g})`,
    fpIdealised: falsePositiveRate(ideal, k, l),
    accessesFalse: accessesFalse(r, k, l),
    accessesFalsePositive: accessesFalsePositive(r, k, l),
    accessesWindow: accessesWindow(r, k, l),
    npws: peakNpwsRate(k, l, r[k + l - 1]!),
    bitsPerElement: ((k + l) * m) / c.window,
    bitsPerElementHardware: ((k + l + c.spares) * m) / c.window,
    capacityVsApbf: blocked ? halfFillLoad(B, b) / ((B / b) * Math.LN2) : null,
  };
}

/** `analyze`: the figures as JSON values and as text. */
export function apbfAnalysis(c: ApbfDerived): Analysis {
  const a = analyzeApbf(c);
  return {
    values: a,
    headline: `${a.filter} k=${a.k} l=${a.l} m=${a.m} g=${a.g}${a.B > 1 ? ` B=${a.B} b=${a.b}` : ''}`,
    lines: [
      `window w = ${a.window}, slack s = ${a.slack}, peak NPWS ${a.npws.toFixed(3)}`,
      `fp just before a shift ${a.fp.toExponential(4)} (${a.fpBasis})`,
      `fp with the paper's idealised fill ratios ${a.fpIdealised.toExponential(4)}`,
      `query accesses: window ${a.accessesWindow.toFixed(2)}, fp ${a.accessesFalsePositive.toFixed(2)}, false ${a.accessesFalse.toFixed(2)}`,
      `bits per element ${a.bitsPerElement.toFixed(2)} (${a.bitsPerElementHardware.toFixed(2)} with the spare banks)`,
      ...(a.capacityVsApbf !== null
        ? [`capacity vs an APBF (k·b, l·b) of the same memory ${a.capacityVsApbf.toFixed(3)}`]
        : []),
    ],
  };
}
