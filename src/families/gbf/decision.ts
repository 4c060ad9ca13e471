/**
 * The inferential GBF's decision table (Dautrich & Ravishankar §5.3, Eq. 34; §2.6), shared by the
 * model and the RTL's decision unit (a block RAM ROM holding exactly these words).
 *
 * The partitioned pipeline observes c0 (reset cells that read 0) and c1 (set cells that read 1)
 * with r0 = k0 and r1 = k1 always, so the posterior is a function of (class, c0, c1): a ROM of
 *
 *   address = class · 2^(b0 + b1) + c0 · 2^b1 + c1        (b0 = bits of k0, b1 = bits of k1)
 *   word    = round(P(I_x < w_class | R_x) · 2^posteriorBits)   (posteriorBits + 1 bits)
 *
 * where a class is a prior p_x and the window w it answers for (the GBF has no built-in window,
 * so one filter serves several: §5.3). With k0 = k1 the words are Eq. 34 with d = c0 + c1,
 * e = k0 + k1 − d and q_ε = 1 − K/m; otherwise the same closed form without the 1/2 step
 * (analysis.ts). Addresses with c0 > k0 or c1 > k1 never occur and hold 0.
 *
 * Decision (minimum expected penalty, §2.6): Pos iff $FP·(1 − p) ≤ $FN·p ⇔ p ≥ $FP/($FP+$FN);
 * the request carries ratio = ⌊$FP/($FP+$FN)·2^posteriorBits⌋ and the answer is Pos iff
 * word ≥ ratio — the rule of the BTBF's decision unit (src/families/tbf/decision.ts).
 */
import { posterior, type GbfShape } from './analysis.js';
import type { GbfDerived } from './types.js';

export interface GbfDecisionLayout {
  classBits: number;
  c0Bits: number;
  c1Bits: number;
  depth: number;
  width: number;
  posteriorBits: number;
}

/** Bits to hold 0..n. */
function bitsOf(n: number): number {
  return Math.max(1, Math.ceil(Math.log2(n + 1)));
}

export function gbfDecisionLayout(c: GbfDerived): GbfDecisionLayout {
  if (!c.decision) throw new Error(`${c.name} has no decision unit`);
  const classBits = Math.ceil(Math.log2(c.decision.classes.length));
  const c0Bits = bitsOf(c.k0);
  const c1Bits = bitsOf(c.k1);
  const pb = c.decision.posteriorBits;
  return { classBits, c0Bits, c1Bits, depth: 2 ** (classBits + c0Bits + c1Bits), width: pb + 1, posteriorBits: pb };
}

export function gbfShape(c: { k0: number; k1: number; m: number }): GbfShape {
  return { k0: c.k0, k1: c.k1, m: c.m, layout: 'partitioned' };
}

export function gbfRomAddress(L: GbfDecisionLayout, cls: number, c0: number, c1: number): number {
  return (((cls << L.c0Bits) | c0) << L.c1Bits) | c1;
}

/** ROM contents (one number per address, every address). */
export function gbfDecisionTable(c: GbfDerived): number[] {
  const L = gbfDecisionLayout(c);
  const s = gbfShape(c);
  const full = 2 ** L.posteriorBits;
  const out = new Array<number>(L.depth).fill(0);
  c.decision!.classes.forEach(({ px, window }, cls) => {
    for (let c0 = 0; c0 <= c.k0; c0++)
      for (let c1 = 0; c1 <= c.k1; c1++) {
        const p = posterior(s, px, window, { c0, c1, r0: c.k0, r1: c.k1 });
        out[gbfRomAddress(L, cls, c0, c1)] = Math.min(full, Math.max(0, Math.round(p * full)));
      }
  });
  return out;
}

/** Pos iff the quantised posterior reaches the quantised penalty ratio $FP/($FP+$FN). */
export function gbfDecide(word: number, ratio: number): boolean {
  return word >= ratio;
}

/** Quantise a penalty pair to the request's ratio field. */
export function gbfRatioOf(costFP: number, costFN: number, posteriorBits: number): number {
  return Math.min(2 ** posteriorBits - 1, Math.floor((costFP / (costFP + costFN)) * 2 ** posteriorBits));
}
