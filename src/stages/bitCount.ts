/**
 * Stage: small functions of a few bits as gates, for paths that must stay a few LUTs deep.
 *
 * `truthTable`: a one-bit function of a few bits as a mux tree of constants (synthesis maps a
 *   function of four bits to one LUT, of six to two levels).
 * `countOnes`: the number of ones among some bits, as a table per bit of the count for up to four
 *   bits, else a ripple of incrementers written bit by bit (no adder cells: synthesis folds each
 *   bit of the count into the few LUTs its inputs need, where adders would become carry chains).
 */
import type { ModuleBuilder, Sig } from '../dsl/module.js';
import { popcount } from '../util/bits.js';
import { muxTree } from './primitives.js';

/** `f` of the bits (`bits[0]` the index's low bit), its low bit, as a mux tree of constants. */
export function truthTable(m: ModuleBuilder, bits: Sig[], f: (v: number) => number): Sig {
  const sel = m.cat(...[...bits].reverse());
  return muxTree(
    m,
    Array.from({ length: 1 << bits.length }, (_, v) => m.const(f(v) & 1, 1)),
    sel,
    { sliceOnce: true },
  );
}

/** The number of ones among `bits`, `width` bits wide (wrapping if it does not fit). */
export function countOnes(m: ModuleBuilder, bits: Sig[], width: number): Sig {
  // Up to four bits: each bit of the count a table of them, one LUT after its inputs however
  // synthesis shares the ripple's gates among counts of a prefix.
  if (bits.length > 1 && bits.length <= 4) {
    return m.cat(
      ...Array.from({ length: width }, (_, k) => truthTable(m, bits, (v) => (popcount(v) >> (width - 1 - k)) & 1)),
    );
  }
  let acc: Sig[] = Array.from({ length: width }, () => m.const(0, 1));
  for (const b of bits) {
    let carry = b;
    acc = acc.map((x) => {
      const out = x.xor(carry);
      carry = x.and(carry);
      return out;
    });
  }
  return m.cat(...[...acc].reverse());
}
