/**
 * Stage: keyed pseudo-random word-local decrement masks, one per bank, for filters that run a
 * random delete inside the word an insert writes anyway: the Stable Bloom filter's word-local
 * decrements and the importance-aware Bloom filter's word-local Random-delete (the models' side
 * of the same scheme: src/model/wordCellBank.ts, whose adjacentMask the masks are made of).
 *
 * `decrementLanes`: `lanes` xorshift32 generators (Marsaglia 2003: x ^= x << 13; x ^= x >> 17;
 *   x ^= x << 5), reset and cleared to `seeds`, stepped once per cycle `step` is high. Bank i's
 *   offset r_i (`offsetBits` bits) is bits [(i mod perLane)·offsetBits, +offsetBits) of lane
 *   ⌊i / perLane⌋, taken from the states before the step. Registers `rng<l>`.
 * `decrementMaskWord`: from the offsets, bank i's mask of the `perBank[i]` cyclically adjacent
 *   cells r_i, r_i + 1, … (mod C) of its word, banks concatenated bank 0 lowest (C bits each).
 */
import type { ModuleBuilder, Sig } from '../dsl/module.js';
import { adjacentMask } from '../model/wordCellBank.js';
import { muxTree } from './primitives.js';

export interface DecrementLanesOptions {
  seeds: readonly number[];
  banks: number;
  offsetBits: number;
  perLane: number;
  step: Sig;
  clear: Sig;
}

/** The generator lanes; the offsets r_i of every bank (bank 0 lowest), or undefined with no lanes. */
export function decrementLanes(m: ModuleBuilder, o: DecrementLanesOptions): Sig | undefined {
  if (o.seeds.length === 0 || o.offsetBits === 0) return undefined;
  const lanes = o.seeds.map((seed, l) => {
    const x = m.reg(`rng${l}`, 32, { reset: seed });
    const a = x.xor(x.shl(13));
    const b = a.xor(a.shr(17));
    const next = b.xor(b.shl(5));
    x.next(m.mux(o.clear, m.const(seed, 32), m.mux(o.step, next, x)));
    return x;
  });
  const ob = o.offsetBits;
  const offsets = Array.from({ length: o.banks }, (_, i) => {
    const shift = (i % o.perLane) * ob;
    return lanes[Math.floor(i / o.perLane)]!.slice(shift + ob - 1, shift);
  });
  return m.cat(...offsets.reverse());
}

/** Every bank's decrement mask (C bits each, bank 0 lowest) from its offset r_i. */
export function decrementMaskWord(
  m: ModuleBuilder,
  o: { perBank: readonly number[]; cells: number; offsetBits: number; offsets: Sig | undefined },
): Sig {
  const C = o.cells;
  const masks = o.perBank.map((Pi, i) => {
    if (Pi === 0 || Pi === C || o.offsets === undefined) return m.const(Pi === 0 ? 0 : 2 ** C - 1, C);
    const r = o.offsets.slice((i + 1) * o.offsetBits - 1, i * o.offsetBits);
    return muxTree(
      m,
      Array.from({ length: C }, (_, v) => m.const(adjacentMask(v, Pi, C), C)),
      r,
    );
  });
  return m.cat(...masks.reverse());
}
