/**
 * Stage: a column of one-bit cells in a block RAM where an op reads its cell and an insert writes
 * a value (0 or 1) into it — the Generalized Bloom filter's bank: a reset hash writes 0, a set
 * hash 1. A generalisation of `testAndSetColumn` (rmw.ts), which only ever sets.
 *
 * `writeBitColumn`: W-bit words at `depth` addresses (memory `ram`, read-during-write
 * 'undefined'); timing as `testAndSetColumn`: the op presents its word address and bit index in
 * R (the read), the word comes back in R+1 and is registered, and in R+2 the op's cell is read
 * and, when `writing`, the word is written back with the cell set to `value` (given in R+2) —
 * the whole word, read-modify-write, the writes of the two ops ahead forwarded
 * (`forwardedRead`). A clear port zeroes words through the same write port. The cell is returned
 * as read, not compared with `value`: the comparison would add a LUT level to the column's
 * longest path, and a caller that counts matches can fold it into the count.
 * Registers: those of `forwardedRead`, `addr`, `addr5`, `onehot` (2 stages), `keep`,
 * `take_fwd`, and the cell (`cellName`), registered at the end of R+2. Latency: cell valid in
 * R+3. Guarantee: with forwarding, the cell is as left by every earlier op and clear (clears and
 * inserts never address one column in the same cycle: the caller keeps inserts off a column
 * being cleared); `forwarding: false` exists to show that the tests catch the hazard.
 */
import type { ModuleBuilder, Sig } from '../dsl/module.js';
import { forwardedRead } from './rmw.js';

export interface WriteBitColumnOptions {
  width: number;
  depth: number;
  /** Word address and bit index of the op in R (null for one-bit words). */
  addr: Sig;
  bit: Sig | null;
  /** An op is in R (the read enable). */
  read: Sig;
  /** The value an insert of the op in R+2 writes into its cell. */
  value: Sig;
  /** The op now in R+2 writes its cell this cycle (a register). */
  writing: Sig;
  /** The write port's enable this cycle, insert or clear (a register). */
  writeEn: Sig;
  /** `issue`: a clear writes next cycle; `write`: a clear writes this cycle, at `addr`. */
  clear: { issue: Sig; write: Sig; addr: Sig };
  forwarding: boolean;
  /** Register name of the cell read. */
  cellName: string;
}

/** One GBF bank: read a cell, write a value into it on insert, zero words on clear. */
export function writeBitColumn(m: ModuleBuilder, o: WriteBitColumnOptions): { cell: Sig } {
  const mem = m.memory('ram', { width: o.width, depth: o.depth, readDuringWrite: 'undefined' });
  const rd = mem.read(o.addr, o.read);
  const addr1 = m.pipe(o.addr, 1, 'addr', { reset: null });
  const addr2 = m.pipe(addr1, 1, 'addr5', { reset: null });
  const onehot = m.pipe(o.bit === null ? m.const(1, 1) : m.const(1, o.width).shl(o.bit), 2, 'onehot', { reset: null });
  const f = forwardedRead(m, { rd, addr: o.addr, addr1, addr2, writing: o.writing, forwarding: o.forwarding });
  const cell = m.pipe(f.word.and(onehot).any(), 1, o.cellName, { reset: null });
  // A clear zeroes `fwd_data` the cycle before it writes, then writes `fwd_data` with the cell
  // left alone (`keep` low): the write data needs no zero mux. (No insert writes a word being
  // cleared.)
  const keep = m.pipe(o.clear.issue.not(), 1, 'keep');
  const takeFwd = m.pipe(o.clear.issue.or(f.hitBNext), 1, 'take_fwd');
  const base = m.mux(takeFwd, f.fwd, f.rdq);
  const cellMask = m.mux(keep, onehot, 0);
  const newWord = base.and(cellMask.not()).or(m.mux(o.value, cellMask, 0));
  f.fwd.next(m.mux(o.clear.issue, 0, newWord));
  mem.write(m.mux(o.clear.write, o.clear.addr, addr2), newWord, o.writeEn);
  return { cell };
}
