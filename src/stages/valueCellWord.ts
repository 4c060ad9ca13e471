/**
 * Stage: a block RAM bank of words of d-bit cells, read-modify-written at one op per cycle with
 * write forwarding, where an insert sets its cell to a VALUE it carries (not to Max): the
 * importance-aware Bloom filter's bank (Imp-insert writes the item's importance, M-insert the
 * constant MAX). Otherwise the same contract, registers and timing as `cellWordBank`
 * (./cellWord.ts), which it follows line for line; it is a separate file because that stage
 * sets Max and existing stages are not changed by a new family.
 *
 * `valueCellWordBank`: `cells` cells of `cellBits` bits per word (cell j in bits [j·d, j·d + d)),
 *   `depth` words. In cycle R the op presents its word address, cell offset and the read enable;
 *   in R+1 whether it is an insert (`ins1`), its decrement mask (`dec1`) and its set value
 *   (`set1`, d bits). In R+2 the op's word — corrected for the writes of the ops one and two
 *   ahead — is tested (the offset's cell non-zero, registered as `matchName`, valid in R+3) and,
 *   for an insert, rewritten: every cell of the decrement mask goes down by one unless it is 0,
 *   then the offset's cell is set to the set value (the set wins over a decrement of the same
 *   cell, as in the paper's Algorithms 1/2 where delete() runs before the k cells are written).
 *   The update and the test are computed on rdq and on fwd_data side by side and selected last.
 *   Clear: as `cellWordBank` (`sweep.issue` zeroes fwd_data, the sweep writes it).
 *   Registers: `addr`, `addr2`, `onehot`, `onehot2`, `set_mask`, `dec_mask`, `set_val`,
 *   `hit_a`, `same_next`, `fwd_data`, `rdq`, `take_fwd`, the match. Memory `ram`.
 *   `forwarding: false` exists only to show that the tests catch the hazard.
 */
import type { ModuleBuilder, Sig } from '../dsl/module.js';
import { registeredMatch } from './rmw.js';

export interface ValueCellWordBankOptions {
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
  /** The op in R+1's set value (`cellBits` bits; only used for inserts). */
  set1: Sig;
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

/** One bank: test the op's cell, and on insert decrement the masked cells and set its own to the value. */
export function valueCellWordBank(m: ModuleBuilder, o: ValueCellWordBankOptions): { match: Sig } {
  const d = o.cellBits;
  const C = o.cells;
  const W = d * C;
  const mem = m.memory('ram', { width: W, depth: o.depth, readDuringWrite: 'undefined' });
  const rd = mem.read(o.addr, o.read);
  const addr1 = m.pipe(o.addr, 1, 'addr', { reset: null });
  const addr2 = m.pipe(addr1, 1, 'addr2', { reset: null });
  const onehot = m.pipe(o.offset === null ? m.const(1, 1) : m.const(1, C).shl(o.offset), 1, 'onehot', { reset: null });
  const onehot2 = m.pipe(onehot, 1, 'onehot2', { reset: null });
  const setMask = m.pipe(m.mux(o.ins1, onehot, 0), 1, 'set_mask');
  const decMask = m.pipe(m.mux(o.ins1, o.dec1, 0), 1, 'dec_mask');
  const setVal = m.pipe(o.set1, 1, 'set_val', { reset: null });
  const off = m.const(0, 1);
  const hitA = o.forwarding
    ? registeredMatch(m, 'hit_a', { write: o.writing, writeAddr: addr2, readAddr: o.addr })
    : m.pipe(off, 1, 'hit_a');
  const sameNext = registeredMatch(m, 'same_next', { writeAddr: addr1, readAddr: o.addr });
  const hitBNext = o.forwarding ? o.writing.and(sameNext) : off;
  const fwd = m.reg('fwd_data', W, { reset: null });
  const rdq = m.pipe(m.mux(hitA, fwd, rd), 1, 'rdq', { reset: null });
  const takeFwd = m.pipe(o.sweep.issue.or(hitBNext), 1, 'take_fwd');
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
  const test = (w: Sig): Sig =>
    Array.from({ length: C }, (_, j) => onehot2.bit(j).and(w.slice(j * d + d - 1, j * d).any())).reduce((a, b) =>
      a.or(b),
    );
  const match = m.pipe(m.mux(takeFwd, test(fwd), test(rdq)), 1, o.matchName, { reset: null });
  return { match };
}
