/**
 * The inferential BTBF's decision table (Dautrich & Ravishankar §4, §2.6), shared by the model and
 * the RTL's decision unit (a block RAM ROM holding exactly these words).
 *
 * For λ_x ≥ 1 the posteriors of Theorems 4 and 5 depend on (λ_x, b) only through
 * lo = (λ_x − 1)·B + b, the number of insertions since T+ left x's oldest timestamp: λ_x < top(b)
 * ⇔ lo + B < w, λ_x = top(b) ⇔ lo < w ≤ lo + B, and the exponent w − (λ_x − 1)B − b = w − lo.
 * So the table is indexed by (prior class, c_x, lo) with lo < w — an exact reparametrisation of
 * (λ_x, c_x, b) — plus, for λ_x = 0 (Theorem 3, which needs b), the entries with c-index 0 and
 * lo = b. With the partitioned layout r_x = k always.
 *
 *   address = class · 2^(cBits + loBits) + cIndex · 2^loBits + lo
 *   word    = round(P(I_x < w | R_x) · 2^posteriorBits)   (posteriorBits + 1 bits)
 *
 * Decision (minimum expected penalty, §2.6): Pos iff $FP·(1 − p) ≤ $FN·p ⇔ p ≥ $FP/($FP+$FN).
 * The request carries ratio = ⌊$FP/($FP+$FN) · 2^posteriorBits⌋ and the answer is
 * Pos iff word ≥ ratio; an expired x has p = 0 (Theorem 2).
 */
import {
  distinctPowerLaw,
  distinctSampled,
  distinctUniform,
  posterior,
  type BtbfShape,
  type DistinctFn,
} from './analysis.js';
import type { DistinctSpec } from './types.js';
import type { TbfDerived } from './types.js';

export function distinctOf(spec: DistinctSpec): DistinctFn {
  if (spec.kind === 'uniform') return distinctUniform(spec.universe);
  if (spec.kind === 'powerlaw') return distinctPowerLaw(spec.universe);
  return distinctSampled(spec.points);
}

export interface DecisionLayout {
  classBits: number;
  cBits: number;
  loBits: number;
  depth: number;
  width: number;
  posteriorBits: number;
}

export function decisionLayout(c: TbfDerived): DecisionLayout {
  if (!c.decision) throw new Error(`${c.name} has no decision unit`);
  const classBits = Math.ceil(Math.log2(c.decision.classes.length));
  const cBits = Math.ceil(Math.log2(c.k + 1));
  const loBits = Math.max(1, Math.ceil(Math.log2(c.window)));
  const pb = c.decision.posteriorBits;
  return {
    classBits,
    cBits,
    loBits,
    depth: 2 ** Math.max(1, classBits + cBits + loBits),
    width: pb + 1,
    posteriorBits: pb,
  };
}

export function btbfShape(c: TbfDerived): BtbfShape {
  return { k: c.k, timersPerHash: c.timersPerBank, layout: 'partitioned', window: c.window, blockSize: c.blockSize };
}

/** ROM contents (one number per address, every address). */
export function decisionTable(c: TbfDerived): number[] {
  const L = decisionLayout(c);
  const s = btbfShape(c);
  const D = distinctOf(c.decision!.distinct);
  const full = 2 ** L.posteriorBits;
  const q = (p: number): number => Math.min(full, Math.max(0, Math.round(p * full)));
  const out = new Array<number>(L.depth).fill(0);
  c.decision!.classes.forEach(({ px }, cls) => {
    const base = cls << (L.cBits + L.loBits);
    // λ = 0: all k timers hold T+; only possible when b > 0.
    out[base] = full;
    for (let b = 1; b < c.blockSize; b++) out[base + b] = q(posterior(s, D, px, { lambda: 0, c: c.k, r: c.k, b }));
    for (let cx = 1; cx <= c.k; cx++) {
      for (let lo = 0; lo < c.window; lo++) {
        const lambda = Math.floor(lo / c.blockSize) + 1;
        const b = lo % c.blockSize;
        out[base + (cx << L.loBits) + lo] = q(posterior(s, D, px, { lambda, c: cx, r: c.k, b }));
      }
    }
  });
  return out;
}

/** The table word for a query's latent state (λ = Infinity: expired, p = 0). */
export function posteriorWord(
  c: TbfDerived,
  table: readonly number[],
  cls: number,
  lambda: number,
  cx: number,
  b: number,
): number {
  if (lambda === Infinity) return 0;
  const L = decisionLayout(c);
  const base = cls << (L.cBits + L.loBits);
  if (lambda === 0) return table[base + b]!;
  return table[base + (cx << L.loBits) + (lambda - 1) * c.blockSize + b]!;
}

/** Pos iff the quantised posterior reaches the quantised penalty ratio $FP/($FP+$FN). */
export function decideWord(word: number, ratio: number): boolean {
  return word >= ratio;
}

/** Quantise a penalty pair to the request's ratio field. */
export function ratioOf(costFP: number, costFN: number, posteriorBits: number): number {
  return Math.min(2 ** posteriorBits - 1, Math.floor((costFP / (costFP + costFN)) * 2 ** posteriorBits));
}
