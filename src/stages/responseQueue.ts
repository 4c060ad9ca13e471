/**
 * Stage: the in-order response queue, and the occupancy count that keeps it from overflowing.
 *
 * `responseQueue`: `depth` register entries (a power of two) with a write pointer (binary, or
 *   one-hot with `oneHotWrite`), a binary read pointer and a thermometer count of the entries
 *   held (registers `rq_wp` or `rq_wp_onehot`, `rq_rp`, `rq_entry<i>`, `rq_count`).
 *   An entry pushed in cycle t is at the head (out_valid high) in cycle t + 1. out_valid is a
 *   register (count > 0); the head's fields are a mux tree of the entries.
 *   Guarantees: entries leave in push order, each exactly once. A push into a full queue is
 *   not guarded: the producer must hold the invariant, which `occupancy` below gives it.
 *
 * `occupancy`: requests accepted and not yet popped, as a thermometer register (`<name>`).
 *   `fullAfter(accept)` says that the queue would be full after this cycle's accept, judged
 *   without this cycle's pop, so the consumer's ready never reaches the producer's ready.
 *   Guarantee: a pipeline that accepts only when `fullAfter` was low a cycle earlier and pushes
 *   each accepted request exactly once never has more than `capacity` requests in flight and
 *   queued, so a queue of `capacity` entries never overflows. A full queue that pops costs one
 *   cycle of back-pressure; a consumer that is always ready never fills it (when `capacity`
 *   covers the pipeline's latency).
 */
import type { ModuleBuilder, Sig } from '../dsl/module.js';
import { muxTree, thermometer } from './primitives.js';

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

export interface Occupancy {
  /** The count as a thermometer: bit i set iff more than i requests are in flight or queued. */
  value: Sig;
  /** Full after this cycle's `accept`, not counting this cycle's pop (keeps out_ready off the accept path). */
  fullAfter(accept: Sig): Sig;
  /** Closes the count: +1 on `accept`, −1 on `pop` (call once). */
  step(accept: Sig, pop: Sig): void;
}

/** Requests accepted and not yet popped from the response queue, for a queue of `capacity` entries. */
export function occupancy(m: ModuleBuilder, opts: { capacity: number; name?: string; wordWide?: boolean }): Occupancy {
  const { capacity } = opts;
  const count = thermometer(m, opts.name ?? 'occupancy', capacity, { wordWide: opts.wordWide });
  return {
    value: count.value,
    fullAfter: (accept) => count.value.bit(capacity - 1).or(accept.and(count.value.bit(capacity - 2))),
    step: (accept, pop) => void count.step(accept, pop),
  };
}
