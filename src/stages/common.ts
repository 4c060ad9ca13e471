/** Pieces the filter pipeline generators share. */
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
    for (let i = 0; i < level.length; i += 2) next.push(m.mux(sel!.bit(bit), level[i + 1]!, level[i]!));
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
    const bits: Sig[] = [];
    for (let i = 0; i < max; i++) {
      const below = i === 0 ? m.const(1, 1) : t.bit(i - 1);
      const above = i === max - 1 ? m.const(0, 1) : t.bit(i + 1);
      // `dec` selects last: it is the late signal (a pop comes from the consumer's ready).
      bits.push(m.mux(dec, m.mux(inc, t.bit(i), above), m.mux(inc, below, t.bit(i))));
    }
    const next = m.cat(...bits.reverse());
    t.next(next);
    return next;
  };
  return { value: t, step };
}

/**
 * In-order response queue of `depth` register entries (a power of two): `push` writes the
 * concatenated `fields` (first field in the most significant bits); the head is valid while the
 * queue is not empty and leaves when `outReady`. Returns the head's fields, `outValid` and `pop`.
 */
export function responseQueue(
  m: ModuleBuilder,
  depth: number,
  push: Sig,
  fields: Sig[],
  outReady: Sig,
  opts: { oneHotWrite?: boolean } = {},
): { outValid: Sig; pop: Sig; head: Sig[] } {
  const qBits = Math.log2(depth);
  // With `oneHotWrite` the write pointer is one-hot (rotated on each push), so an entry's enable
  // is one AND; otherwise a binary pointer compared per entry. (The TBF/BTBF pipelines use the
  // one-hot pointer; on the APBF/APBBF presets it placed worse: `bloomforge synth --seeds 3`.)
  const wpOneHot = opts.oneHotWrite ? m.reg('rq_wp_onehot', depth, { reset: 1 }) : null;
  const wp = opts.oneHotWrite ? null : m.reg('rq_wp', qBits + 1);
  const rp = m.reg('rq_rp', qBits + 1);
  const entryW = fields.reduce((s, f) => s + f.width, 0);
  const entries: Sig[] = [];
  for (let i = 0; i < depth; i++) {
    const slot = wpOneHot ? wpOneHot.bit(i) : wp!.slice(qBits - 1, 0).eq(i);
    const e = m.reg(`rq_entry${i}`, entryW, { reset: null, en: push.and(slot) });
    e.next(m.cat(...fields));
    entries.push(e);
  }
  // Entries held, as a thermometer: out_valid is a register (count > 0), not a pointer compare.
  const count = thermometer(m, 'rq_count', depth);
  const outValid = count.value.bit(0);
  const pop = outValid.and(outReady);
  count.step(push, pop);
  if (wpOneHot) wpOneHot.next(m.mux(push, m.cat(wpOneHot.slice(depth - 2, 0), wpOneHot.bit(depth - 1)), wpOneHot));
  if (wp) wp.next(m.mux(push, wp.add(1), wp));
  rp.next(m.mux(pop, rp.add(1), rp));
  const word = muxTree(m, entries, rp.slice(qBits - 1, 0));
  let hi = entryW - 1;
  const head = fields.map((f) => {
    const s = word.slice(hi, hi - f.width + 1);
    hi -= f.width;
    return s;
  });
  return { outValid, pop, head };
}
