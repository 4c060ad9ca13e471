/**
 * Stage: the lane wrapper's response queue (src/lanes/rtl.ts), whose entries are reserved in
 * request order as requests are issued, and the count of requests in flight that keeps it from
 * overflowing.
 *
 * `slotQueue`: `depth` slots (a power of two). A request's word of meta (its seq and tag) is
 *   written into its slot (`meta`: the slot, one counted per issued request by the caller) at
 *   any time before its answer comes; the answers come in request order and go into the slot at
 *   the queue's own write pointer (`answer`); the head slot leaves when its answer is in and
 *   `outReady`. The meta words are a memory (one write and one read a cycle: a block RAM), the
 *   answers registers (`<name>_entry<j>`, written through one-hot column and row registers
 *   `<name>_wcol`, `<name>_wrow`), the pointers `<name>_rp`, `<name>_wp` one bit wider than a
 *   slot. `outValid` is a register (`<name>_out_valid`), set from the pointers' next values, so
 *   only a pop follows outReady. The head is {meta, answer}, its meta 0 while outValid is low.
 *   Guarantees: answers leave in the order they came, each once, with the meta of their slot —
 *   provided a slot's meta is written before its answer comes and no more than `depth` requests
 *   are between issue and pop (`inFlightCount`).
 *
 * `inFlightCount`: requests from issue to pop, a count register (`<name>`) and its `full` flag
 *   (`<name>_full`). `step(issued, pop)` closes them and returns full's next value. The count
 *   follows the issue (a grant a cycle late), so no grant feeds it: two requests are not counted
 *   yet, last cycle's grant (being issued) and this cycle's; `full` (count ≥ D − 1) assumes both,
 *   so a requester granted only while `full` is low never has more than D requests from grant to
 *   pop. The next values are selected among compares of the count register (no carry chain).
 */
import type { ModuleBuilder, Reg, Sig } from '../dsl/module.js';
import { muxTree } from './primitives.js';

export interface InFlightCount {
  /** D − 1 or D requests counted (a register). */
  full: Sig;
  /** Closes the count: +1 on `issued`, −1 on `pop`; returns full's next value. */
  step(issued: Sig, pop: Sig): Sig;
}

export function inFlightCount(m: ModuleBuilder, name: string, D: number): InFlightCount {
  const count = m.reg(name, Math.log2(D) + 1);
  const full = m.reg(`${name}_full`, 1);
  return {
    full,
    step: (issued, pop) => {
      count.next(m.mux(issued, m.mux(pop, count, count.add(1)), m.mux(pop, count.sub(1), count)));
      // Full next cycle: the count then, with the grant of this cycle assumed, reaches D (full:
      // the count is D − 1 or D; it never exceeds D). Equality compares, no carry chain.
      const fullNext = m.mux(issued, m.mux(pop, full, full.or(count.eq(D - 2))), m.mux(pop, count.eq(D), full));
      full.next(fullNext);
      return fullNext;
    },
  };
}

export function slotQueue(
  m: ModuleBuilder,
  name: string,
  D: number,
  meta: { we: Sig; slot: Sig; data: Sig },
  answer: { valid: Sig; data: Sig },
  outReady: Sig,
): { outValid: Sig; pop: Sig; head: Sig } {
  const SLOT_BITS = Math.log2(D);
  const rp = m.reg(`${name}_rp`, SLOT_BITS + 1);
  const wp = m.reg(`${name}_wp`, SLOT_BITS + 1);
  const outValid = m.reg(`${name}_out_valid`, 1);
  // The meta words in a memory read every cycle at the next head, so the head's word is there
  // when it becomes the head. A read of a slot as it is written gives an undefined word, but only
  // while that slot's answer is not in (its meta is written before its answer comes): out_valid
  // is low then, and the word is shown as 0 while out_valid is low.
  const metaMem = m.memory(`${name}_meta`, { width: meta.data.width, depth: D, readDuringWrite: 'undefined' });
  metaMem.write(meta.slot, meta.data, meta.we);
  // The answer's slot as two one-hot registers beside the write pointer, its column (`_wcol`, the
  // low bits: rotated by every answer) and its row (`_wrow`: rotated as the column wraps), so an
  // entry's write enable is one gate of the answer's valid and two register bits.
  const C = 2 ** Math.ceil(SLOT_BITS / 2);
  const R = D / C;
  const rotate = (r: Reg, n: number): Sig => m.cat(r.slice(n - 2, 0), r.bit(n - 1));
  const wcol = m.reg(`${name}_wcol`, C, { reset: 1 });
  const wrow = m.reg(`${name}_wrow`, R, { reset: 1 });
  wcol.next(m.mux(answer.valid, rotate(wcol, C), wcol));
  wrow.next(m.mux(answer.valid.and(wcol.bit(C - 1)), rotate(wrow, R), wrow));
  const entries: Sig[] = [];
  for (let j = 0; j < D; j++) {
    const en = answer.valid.and(wrow.bit(Math.floor(j / C))).and(wcol.bit(j % C));
    const e = m.reg(`${name}_entry${j}`, answer.data.width, { reset: null, en });
    e.next(answer.data);
    entries.push(e);
  }
  const wpNext = m.mux(answer.valid, wp.add(1), wp);
  wp.next(wpNext);
  const pop = outValid.and(outReady);
  const rpNext = m.mux(pop, rp.add(1), rp);
  rp.next(rpNext);
  outValid.next(wpNext.ne(rpNext));
  const metaHead = metaMem.read(rpNext.slice(SLOT_BITS - 1, 0));
  const at = rp.slice(SLOT_BITS - 1, 0);
  return { outValid, pop, head: m.cat(m.mux(outValid, metaHead, 0), muxTree(m, entries, at, { sliceOnce: true })) };
}
