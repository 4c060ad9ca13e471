/**
 * Small building blocks the stages share: widths, a balanced mux tree, a thermometer counter.
 * None has registers of its own except `thermometer` (one register of `max` bits).
 */
import type { ModuleBuilder, Sig } from '../dsl/module.js';

/** Bits to hold 0..maxValue (at least 1). */
export function bitsFor(maxValue: number): number {
  return Math.max(1, Math.ceil(Math.log2(maxValue + 1)));
}

/**
 * xs[sel] as a balanced tree of 2:1 muxes (xs.length a power of two, sel log2(xs.length) bits).
 * `sliceOnce`: one slice cell per select bit rather than one per mux — the same logic in fewer
 * cells (faster in the simulator); off where it was, as the netlist's cell names, and so a
 * measured placement, would change.
 */
export function muxTree(m: ModuleBuilder, xs: Sig[], sel: Sig | null, opts: { sliceOnce?: boolean } = {}): Sig {
  let level = xs;
  for (let bit = 0; level.length > 1; bit++) {
    const next: Sig[] = [];
    const once = opts.sliceOnce ? sel!.bit(bit) : null;
    for (let i = 0; i < level.length; i += 2) next.push(m.mux(once ?? sel!.bit(bit), level[i + 1]!, level[i]!));
    level = next;
  }
  return level[0]!;
}

/**
 * A count 0..max kept as a thermometer code (bit i set iff count > i). `step(inc, dec)` sets its
 * next state (both in one cycle: unchanged) and returns it. Each bit's next state is one small
 * function of bits i - 1, i, i + 1, inc and dec, so "count > i" is a register and never an adder
 * followed by a compare. `wordWide`: the same function as shifts and muxes of the whole word
 * (a few cells instead of three per bit: faster in the simulator); off where the netlist, and
 * so a measured placement, would change.
 */
export function thermometer(
  m: ModuleBuilder,
  name: string,
  max: number,
  opts: { wordWide?: boolean } = {},
): { value: Sig; step: (inc: Sig, dec: Sig) => Sig } {
  const t = m.reg(name, max);
  const wordStep = (inc: Sig, dec: Sig): Sig => {
    const up = max === 1 ? m.const(1, 1) : m.cat(t.slice(max - 2, 0), m.const(1, 1));
    const down = max === 1 ? m.const(0, 1) : m.cat(m.const(0, 1), t.slice(max - 1, 1));
    // `dec` selects last: it is the late signal (a pop comes from the consumer's ready).
    return m.mux(dec, m.mux(inc, t, down), m.mux(inc, up, t));
  };
  const bitStep = (inc: Sig, dec: Sig): Sig => {
    const bits: Sig[] = [];
    for (let i = 0; i < max; i++) {
      const below = i === 0 ? m.const(1, 1) : t.bit(i - 1);
      const above = i === max - 1 ? m.const(0, 1) : t.bit(i + 1);
      bits.push(m.mux(dec, m.mux(inc, t.bit(i), above), m.mux(inc, below, t.bit(i))));
    }
    return m.cat(...bits.reverse());
  };
  const step = (inc: Sig, dec: Sig): Sig => {
    const next = opts.wordWide ? wordStep(inc, dec) : bitStep(inc, dec);
    t.next(next);
    return next;
  };
  return { value: t, step };
}

/** At most this many steps: t advanced by each count of them formed beside, the steps select. */
const FEW_STEPS = 3;

/**
 * A time of block-counted steps advanced by `n` events: b (mod `block`, a power of two; null when
 * block = 1) and t (mod `wrap`, t < wrap) become (b + n) mod block and t + ⌊(b + n)/block⌋ mod
 * wrap — so the steps must not exceed `wrap`. With `nMax` (the most n is) giving at most FEW_STEPS
 * steps, t + k mod wrap is formed for every k from t alone (a constant add beside a constant
 * compare) and the steps, the carry of b + n, select it: no carry runs from n into t. Otherwise
 * one mixed-radix addition with one conditional subtraction.
 * (The TBF's (T+, b) advanced by inserts: the lanes dispatcher's global time and its shards.)
 */
export function advanceTime(
  m: ModuleBuilder,
  o: { t: Sig; b: Sig | null; n: Sig; wrap: number; nMax?: number },
): { t: Sig; b: Sig | null } {
  let steps = o.n;
  let b: Sig | null = null;
  const nMax = Math.min(o.nMax ?? Infinity, 2 ** o.n.width - 1);
  let kMax = nMax;
  if (o.b) {
    const bBits = o.b.width;
    const w = Math.max(bBits, o.n.width) + 1;
    const sum = o.b.zext(w).add(o.n.zext(w));
    b = sum.slice(bBits - 1, 0);
    steps = sum.slice(w - 1, bBits);
    kMax = Math.floor((2 ** bBits - 1 + nMax) / 2 ** bBits);
  }
  if (kMax <= FEW_STEPS && kMax <= o.wrap) {
    const tw = o.t.width;
    const plus = (k: number): Sig =>
      k === 0
        ? o.t
        : m.mux(
            o.t.ge(o.wrap - k),
            o.t.sub(o.wrap - k),
            o.t
              .zext(tw + 1)
              .add(k)
              .trunc(tw),
          );
    const q = bitsFor(kMax);
    const values = Array.from({ length: 2 ** q }, (_, k) => plus(Math.min(k, kMax)));
    return { t: kMax === 0 ? o.t : muxTree(m, values, steps.slice(q - 1, 0), { sliceOnce: true }), b };
  }
  const w = Math.max(o.t.width, steps.width) + 1;
  const t = o.t.zext(w).add(steps.zext(w));
  return { t: m.mux(t.ge(o.wrap), t.sub(o.wrap), t).trunc(o.t.width), b };
}
