/**
 * Small building blocks the stages share: widths, a balanced mux tree, a thermometer counter.
 * None has registers of its own except `thermometer` (one register of `max` bits).
 */
import type { ModuleBuilder, Sig } from '../dsl/module.js';

/** Bits to hold 0..maxValue (at least 1). */
export function bitsFor(maxValue: number): number {
  return Math.max(1, Math.ceil(Math.log2(maxValue + 1)));
}

/** xs[sel] as a balanced tree of 2:1 muxes (xs.length a power of two, sel log2(xs.length) bits). */
export function muxTree(m: ModuleBuilder, xs: Sig[], sel: Sig | null): Sig {
  let level = xs;
  for (let bit = 0; level.length > 1; bit++) {
    const next: Sig[] = [];
    const s = sel!.bit(bit);
    for (let i = 0; i < level.length; i += 2) next.push(m.mux(s, level[i + 1]!, level[i]!));
    level = next;
  }
  return level[0]!;
}

/**
 * A count 0..max kept as a thermometer code (bit i set iff count > i). `step(inc, dec)` sets its
 * next state (both in one cycle: unchanged) and returns it. Each bit's next state is one small
 * function, so "count > i" is a register and never an adder followed by a compare.
 */
export function thermometer(
  m: ModuleBuilder,
  name: string,
  max: number,
): { value: Sig; step: (inc: Sig, dec: Sig) => Sig } {
  const t = m.reg(name, max);
  const step = (inc: Sig, dec: Sig): Sig => {
    // Word-wide, bit i's next state is still a function of bits i - 1, i, i + 1, inc and dec.
    const up = max === 1 ? m.const(1, 1) : m.cat(t.slice(max - 2, 0), m.const(1, 1));
    const down = max === 1 ? m.const(0, 1) : m.cat(m.const(0, 1), t.slice(max - 1, 1));
    // `dec` selects last: it is the late signal (a pop comes from the consumer's ready).
    const next = m.mux(dec, m.mux(inc, t, down), m.mux(inc, up, t));
    t.next(next);
    return next;
  };
  return { value: t, step };
}

/**
 * A time of block-counted steps advanced by `n` events: b (mod `block`, a power of two; null when
 * block = 1) and t (mod `wrap`) become (b + n) mod block and t + ⌊(b + n)/block⌋ mod wrap, as one
 * mixed-radix addition with one conditional subtraction — so the steps must not exceed `wrap`.
 * (The TBF's (T+, b) advanced by inserts: the lanes dispatcher's global time and its shards.)
 */
export function advanceTime(
  m: ModuleBuilder,
  o: { t: Sig; b: Sig | null; n: Sig; wrap: number },
): { t: Sig; b: Sig | null } {
  let steps = o.n;
  let b: Sig | null = null;
  if (o.b) {
    const bBits = o.b.width;
    const w = Math.max(bBits, o.n.width) + 1;
    const sum = o.b.zext(w).add(o.n.zext(w));
    b = sum.slice(bBits - 1, 0);
    steps = sum.slice(w - 1, bBits);
  }
  const w = Math.max(o.t.width, steps.width) + 1;
  const t = o.t.zext(w).add(steps.zext(w));
  return { t: m.mux(t.ge(o.wrap), t.sub(o.wrap), t).trunc(o.t.width), b };
}
