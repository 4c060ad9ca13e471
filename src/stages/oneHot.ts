/**
 * Stage: one-hot selects and their OR, the router of the lane wrapper (src/lanes/rtl.ts): each
 * shard takes the request of the lane granted to it, each lane the answer of the shard that
 * answers it, both a select by one-hot (or zero) flags.
 *
 * `anyOf`: the OR of some one-bit signals (a constant 0 of none).
 * `oneHotSelect`: the OR of (sel_j ? x_j : 0), so with one flag set its x, with none 0 (with
 *   several the OR of theirs: the caller keeps the flags one-hot).
 */
import type { ModuleBuilder, Sig } from '../dsl/module.js';

/** The OR of `xs` (a constant 0 when there are none). */
export function anyOf(m: ModuleBuilder, xs: Sig[]): Sig {
  return xs.length ? xs.reduce((a, b) => a.or(b)) : m.const(0, 1);
}

/** One-hot select of `width`-bit words: OR of (sels[j] ? xs[j] : 0); 0 when no flag is set. */
export function oneHotSelect(m: ModuleBuilder, sels: Sig[], xs: Sig[], width: number): Sig {
  const terms = sels.map((s, j) => m.mux(s, xs[j]!, m.const(0, width)));
  return terms.length ? terms.reduce((a, b) => a.or(b)) : m.const(0, width);
}
