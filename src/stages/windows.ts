/**
 * Stage: "k consecutive segments match inside a valid window" (the APBF/APBBF membership test).
 *
 * Inputs: `match[i]`, segment (bank) i matched the key; `valid`, P bits, bit p set when the
 * window starting at segment p is one the query may use. Window p holds when valid(p) and
 * segments p, p+1, …, p+k−1 (mod P) all match: a k+1-input AND per window, no adder, no
 * priority logic. Registers: `<name>` (P bits, no reset). Latency 1. The caller ORs the
 * windows (`.any()`) for the answer, after the register.
 * Guarantee: bit p of the result equals valid[p] ∧ ⋀_{i<k} match[(p+i) mod P] of the inputs
 * one cycle earlier (test/stages/windows.test.ts compares it with that formula).
 */
import type { ModuleBuilder, Sig } from '../dsl/module.js';

export interface ConsecutiveMatchOptions {
  /** Per segment, in physical (bank) order; match.length = P. */
  match: Sig[];
  /** P bits: window p may be used. */
  valid: Sig;
  /** Segments per window. */
  k: number;
  name: string;
}

/** Registered P-bit vector: window p valid and its k consecutive segments (mod P) all match. */
export function consecutiveMatch(m: ModuleBuilder, o: ConsecutiveMatchOptions): Sig {
  const P = o.match.length;
  const match = m.cat(...[...o.match].reverse());
  const windows = Array.from({ length: P }, (_, p) => {
    let all = o.valid.bit(p);
    for (let i = 0; i < o.k; i++) all = all.and(match.bit((p + i) % P));
    return all;
  });
  return m.pipe(m.cat(...windows.reverse()), 1, o.name, { reset: null });
}
