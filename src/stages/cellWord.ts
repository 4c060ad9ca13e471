/**
 * Stage: a block RAM bank of words of saturating d-bit cells, read-modify-written by a stream of
 * ops at one per cycle with write forwarding: the word-local cell bank of the Stable Bloom filter
 * (an insert sets its cell to Max) and of the importance-aware Bloom filter (an insert sets its
 * cell to a value it carries: the item's importance, or MAX), usable by any filter that ages
 * counters word-locally. ./cellBanks.ts puts k of them behind their H3 hashes.
 *
 * `cellWordBank`: `cells` cells of `cellBits` bits per word (cell j in bits [j·d, j·d + d)),
 *   `depth` words. An op presents in cycle R its word address, its cell offset and the read
 *   enable; in R+1 whether it is an insert (`ins1`) and its decrement mask (`dec1`, one bit per
 *   cell of the word). In R+2 the op's word — corrected for the writes of the ops one and two
 *   ahead, exactly as `forwardedRead` (./rmw.ts) does — is tested (the offset's cell non-zero,
 *   registered as `matchName`, valid in R+3) and, for an insert, rewritten: every cell of the
 *   decrement mask goes down by one unless it is 0, then the offset's cell is set to Max
 *   (2^d − 1) or, given `set1` (the op's set value in R+1, registered as `set_val`), to that
 *   value: the set wins over a decrement of the same cell (as in the SBF, where the k cells are
 *   set after the P decrements, and in the IBF's Algorithms 1/2, where delete() runs first). (The test and the update are
 *   computed on both candidate words, rdq and fwd_data, and selected by the forwarding select:
 *   a LUT level shorter than selecting the word first.) The new word is written at the
 *   end of R+2 and kept in `fwd_data` for the ops behind.
 *   Clear: `sweep.issue` (a zero is written next cycle) zeroes `fwd_data` and makes the next
 *   cycle take it, so the sweep writes `fwd_data`'s zero at `sweep.addr` and the write data
 *   needs no zero mux (no insert may be in R+1 or R+2 while the sweep writes: the caller's
 *   side, held by in_ready).
 *   Registers: `addr`, `addr2`, `onehot`, `onehot2`, `set_mask`, `dec_mask`, `set_val` (with
 *   `set1`), `hit_a`,
 *   `same_next`, `fwd_data`, `rdq`, `take_fwd`, the match. Memory `ram` (read-during-write
 *   'undefined': a read at the edge the op two ahead writes is replaced by `fwd_data`).
 *   `forwarding: false` exists only to show that the tests catch the hazard.
 */
import type { ModuleBuilder, Sig } from '../dsl/module.js';
import { registeredMatch } from './rmw.js';

export interface CellWordBankOptions {
  cellBits: number;
  /** Cells per word (a power of two). */
  cells: number;
  depth: number;
  /** Word address and cell offset of the op in R (offset null with one cell per word). */
  addr: Sig;
  offset: Sig | null;
  /** An op is in R (read enable). */
  read: Sig;
  /** The op in R+1 is a valid insert. */
  ins1: Sig;
  /** The op in R+1's decrement mask (`cells` bits; only used for inserts). */
  dec1: Sig;
  /** The op in R+1's set value (`cellBits` bits; only used for inserts); absent: Max. */
  set1?: Sig;
  /** Register: the op in R+2 writes this cycle (a valid insert). */
  writing: Sig;
  /** Register: the write port's enable this cycle (an insert in R+2, or the sweep). */
  writeEn: Sig;
  /** `issue`: the sweep writes a zero next cycle; `write`, `addr`: it writes now, there. */
  sweep: { issue: Sig; write: Sig; addr: Sig };
  forwarding: boolean;
  /** Register name of the test result. */
  matchName: string;
}

/** One bank: test the op's cell, and on insert decrement the masked cells and set its own (to Max or `set1`). */
export function cellWordBank(m: ModuleBuilder, o: CellWordBankOptions): { match: Sig } {
  const d = o.cellBits;
  const C = o.cells;
  const W = d * C;
  const max = 2 ** d - 1;
  const mem = m.memory('ram', { width: W, depth: o.depth, readDuringWrite: 'undefined' });
  const rd = mem.read(o.addr, o.read);
  const addr1 = m.pipe(o.addr, 1, 'addr', { reset: null });
  const addr2 = m.pipe(addr1, 1, 'addr2', { reset: null });
  const onehot = m.pipe(o.offset === null ? m.const(1, 1) : m.const(1, C).shl(o.offset), 1, 'onehot', { reset: null });
  const onehot2 = m.pipe(onehot, 1, 'onehot2', { reset: null });
  // The insert's masks, zero for the other ops and for bubbles (so the sweep's words stay zero).
  const setMask = m.pipe(m.mux(o.ins1, onehot, 0), 1, 'set_mask');
  const decMask = m.pipe(m.mux(o.ins1, o.dec1, 0), 1, 'dec_mask');
  const setVal = o.set1 ? m.pipe(o.set1, 1, 'set_val', { reset: null }) : max;
  const off = m.const(0, 1);
  // The op two ahead writes at this op's read edge (collision: take fwd_data into rdq); the op
  // one ahead writes at the end of R+1 (take fwd_data in R+2). Both compares registered.
  const hitA = o.forwarding
    ? registeredMatch(m, 'hit_a', { write: o.writing, writeAddr: addr2, readAddr: o.addr })
    : m.pipe(off, 1, 'hit_a');
  const sameNext = registeredMatch(m, 'same_next', { writeAddr: addr1, readAddr: o.addr });
  const hitBNext = o.forwarding ? o.writing.and(sameNext) : off;
  const fwd = m.reg('fwd_data', W, { reset: null });
  const rdq = m.pipe(m.mux(hitA, fwd, rd), 1, 'rdq', { reset: null });
  const takeFwd = m.pipe(o.sweep.issue.or(hitBNext), 1, 'take_fwd');
  // The insert's update (masked cells down by one unless 0, the own cell set) is made on rdq
  // and on fwd_data side by side and selected last, so the forwarding mux is not in front of the
  // per-cell zero test and the decrement (the critical path into the write data otherwise).
  const update = (w: Sig): Sig => {
    const updated = Array.from({ length: C }, (_, j) => {
      const cell = w.slice(j * d + d - 1, j * d);
      const dec = m.mux(decMask.bit(j).and(cell.any()), cell.sub(1), cell);
      return m.mux(setMask.bit(j), setVal, dec);
    });
    return m.cat(...updated.reverse());
  };
  const newWord = m.mux(takeFwd, update(fwd), update(rdq));
  fwd.next(m.mux(o.sweep.issue, 0, newWord));
  mem.write(m.mux(o.sweep.write, o.sweep.addr, addr2), newWord, o.writeEn);
  // The test is made on rdq and on fwd_data side by side and selected last, so the word mux is
  // not in front of the per-cell OR and the OR over the cells (the 48-bit words' critical path).
  const test = (w: Sig): Sig =>
    Array.from({ length: C }, (_, j) => onehot2.bit(j).and(w.slice(j * d + d - 1, j * d).any())).reduce((a, b) =>
      a.or(b),
    );
  const match = m.pipe(m.mux(takeFwd, test(fwd), test(rdq)), 1, o.matchName, { reset: null });
  return { match };
}
