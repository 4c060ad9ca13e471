/**
 * One GBF config's analytics (what `bloomforge analyze` prints for it), from analysis.ts for the
 * partitioned layout: the probability that a key inserted i inserts ago is still reported (Eq. 32
 * with every cell as x left it; distinct insertions), at the edge of the config's window and
 * averaged over it; false positives of a never-inserted key in steady state (every cell written:
 * 0 with probability k0/K); the accesses of a software query answered false that stops at the
 * first cell that differs; bits per item of the window. The GBF promises no window (§5.2: false
 * negatives by design), so `window` is null; `decayWindow` is the window the figures are for.
 */
import type { Analysis } from '../types.js';
import { freshAccesses, freshHitProbability, hitProbability, posterior, qEps } from './analysis.js';
import { gbfShape } from './decision.js';
import type { GbfDerived } from './types.js';

export interface GbfAnalysis {
  filter: string;
  k0: number;
  k1: number;
  banks: number;
  cellsPerBank: number;
  /** No guarantee: keys of the window may be forgotten (false negatives). */
  window: null;
  slack: number;
  /** The window the decay figures (and the decision unit's default class) refer to. */
  decayWindow: number;
  /** P(Pos) for a never-inserted key in steady state: (k0/K)^k0 (k1/K)^k1. */
  fp: number;
  fpBasis: string;
  /** q_ε: a cell is left untouched by one insert (1 − K/m). */
  qEps: number;
  /** P(Pos | I_x = w − 1) and 1 minus it: the oldest key of the window. */
  hitAtWindowEdge: number;
  fnAtWindowEdge: number;
  /** Mean over I_x = 0..w−1 of P(Neg | I_x): false negatives of the window, distinct insertions. */
  fnWindowMean: number;
  /** P(Pos | I_x = w): the youngest key just out of the window. */
  hitJustOutside: number;
  accessesFalse: number;
  accessesNegative: number;
  bitsPerElement: number;
  /** Decision unit: per class, the posterior of a query that matches every cell and of one that matches none. */
  classes: { name: string; px: number; window: number; allMatch: number; noneMatch: number }[] | null;
}

export function analyzeGbf(c: GbfDerived): GbfAnalysis {
  const s = gbfShape(c);
  const w = c.window;
  let fnSum = 0;
  // P(Neg | i) summed over the window: exact terms, the window's length at most 2^20 here.
  const step = Math.max(1, Math.floor(w / 2 ** 20));
  let n = 0;
  for (let i = 0; i < w; i += step) {
    fnSum += 1 - hitProbability(s, i);
    n++;
  }
  const acc = freshAccesses(s);
  const edge = hitProbability(s, w - 1);
  return {
    filter: c.filter,
    k0: c.k0,
    k1: c.k1,
    banks: c.k0 + c.k1,
    cellsPerBank: c.cellsPerBank,
    window: null,
    slack: 0,
    decayWindow: w,
    fp: freshHitProbability(s),
    fpBasis: 'a never-inserted key, every cell written at least once (steady state)',
    qEps: qEps(s),
    hitAtWindowEdge: edge,
    fnAtWindowEdge: 1 - edge,
    fnWindowMean: fnSum / n,
    hitJustOutside: hitProbability(s, w),
    accessesFalse: acc.givenFalse,
    accessesNegative: acc.all,
    bitsPerElement: c.m / w,
    classes: c.decision
      ? c.decision.classes.map((k) => ({
          name: k.name,
          px: k.px,
          window: k.window,
          allMatch: posterior(s, k.px, k.window, { c0: c.k0, c1: c.k1, r0: c.k0, r1: c.k1 }),
          noneMatch: posterior(s, k.px, k.window, { c0: 0, c1: 0, r0: c.k0, r1: c.k1 }),
        }))
      : null,
  };
}

/** `analyze`: the figures as JSON values and as text. */
export function gbfAnalysis(c: GbfDerived): Analysis {
  const t = analyzeGbf(c);
  const lines = [
    `no window guarantee (false negatives by design, §5.2); figures for w = ${t.decayWindow}`,
    `keys of age w − 1 reported ${t.hitAtWindowEdge.toFixed(4)} (false negative ${t.fnAtWindowEdge.toFixed(4)}), ` +
      `mean false negative over the window ${t.fnWindowMean.toFixed(4)}, age w reported ${t.hitJustOutside.toFixed(4)}`,
    `fp ${t.fp.toExponential(4)} (${t.fpBasis})`,
    `query accesses, stopping at the first differing cell: ${t.accessesFalse.toFixed(4)} for a false answer, ` +
      `${t.accessesNegative.toFixed(4)} over every never-inserted key`,
    `bits per element ${t.bitsPerElement.toFixed(2)} (m = ${c.m} cells in ${t.banks} banks)`,
  ];
  for (const k of t.classes ?? [])
    lines.push(
      `decision class ${k.name}: p_x ${k.px.toExponential(3)}, w = ${k.window}: posterior ${k.allMatch.toFixed(4)} when every cell matches, ${k.noneMatch.toFixed(4)} when none does`,
    );
  return {
    values: { ...t, window: null },
    headline: `gbf k0=${t.k0} k1=${t.k1} banks=${t.banks}x${t.cellsPerBank} cells${c.decision ? ' +decision' : ''}`,
    lines,
  };
}
