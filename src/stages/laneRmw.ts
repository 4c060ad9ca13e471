/**
 * Stage: read-modify-write of one cell of a block RAM bank whose words pack `lanes` cells of
 * `cellBits` bits (counters, timers, …), one op per cycle, exact under back-to-back ops on the
 * same cell or on cells sharing a word.
 *
 * Timing (relative to the cycle R in which an op presents its word address and lane, both
 * registers): the block RAM returns the word at R+1, the word is registered at the end of R+1
 * (`rdq`) and of R+2 (`w2q`), the op's own cell is taken out of the word at R+2 and registered
 * (`mine`), and in R+3 the caller computes the cell's new value from it (`commit`). The word with
 * that cell replaced is registered (`upd_data`, with its address and write flag) and written from
 * that register at the end of R+4, so nothing of the update logic sits in front of the block RAM.
 * Four writes therefore land after an op read its word: the op four ahead writes at the op's own
 * read edge (a read-during-write collision: the memory is declared 'undefined', so the word read
 * is not defined), the ops three, two and one ahead after it. `upd_data` holds the word updated
 * last cycle and `upd2_data` the one before; every correction is a compare made a cycle early and
 * registered:
 *   - `hit_a3` / `hit_a4` (the op three / four ahead updated this word; compared in R): `rdq`
 *     takes `upd_data` / `upd2_data` instead of the block RAM's output (newest first);
 *   - `hit_b` (the op two ahead; compared in R+1): the word of R+2 is `upd_data`;
 *   - `hit_c` (the op one ahead; compared in R+2): the word written back is built on `upd_data`;
 *   - `same` (the op one ahead wrote this very cell; compared in R+2): the cell value in R+3 is
 *     `prev`, the value that op gave it (a register), instead of `mine`.
 * So every op sees, and writes back, the words as every earlier op left them: the sequential
 * semantics at one op per cycle. The loop from one op's new value to the next op's is
 * `same ? prev : mine` → the caller's logic → `commit`, nothing of the block RAM path in it.
 * `flags(v)` gives predicates of the cell value (e.g. "at its maximum") computed in R+2 and
 * registered beside `mine`, so the caller needs only the matching predicate of its own new value
 * in a register to have the predicate of `value` one LUT after registers.
 *
 * Registers (in the caller's scope): `addr1`, `addr2`, `addr3`, `lane` (two stages), `lane3`,
 * `onehot`, `upd_data`, `upd_addr`, `upd_write`, `upd2_data`, `upd2_addr`… (see the code), `hit_a3`,
 * `hit_a4`, `hit_b`, `hit_c`, `same`, `rdq`, `w2q`, `mine`, `mine_flag<i>`, `prev`.
 * Memory `ram` (lanes·cellBits × depth). A clear port writes zero words through the same write
 * port (`clear.write` high: a zero at `clear.addr` this cycle); the caller keeps ops out of R..R+4
 * while it does (a clear is never forwarded). `forwarding: false` drops every correction; it exists
 * so tests can show that they catch the hazards (under read-during-write poisoning).
 */
import type { ModuleBuilder, Reg, Sig } from '../dsl/module.js';
import { muxTree } from './primitives.js';
import { registeredMatch } from './rmw.js';

export interface LaneRmwOptions {
  cellBits: number;
  /** Cells per word, a power of two. */
  lanes: number;
  /** Words, a power of two ≥ 2. */
  depth: number;
  /** The op's word address and lane in R (registers; lane null when lanes = 1). */
  addr: Sig;
  lane: Sig | null;
  /** An op is in R (the read enable). */
  read: Sig;
  /** The op now in R+3 writes its word this cycle (a register). */
  writing: Sig;
  /** A zero word is written this cycle at `addr` (registers); null: no clear port. */
  clear: { write: Sig; addr: Sig } | null;
  forwarding: boolean;
  /** Tests only: drop these corrections (each one is needed: the tests show what breaks). */
  drop?: readonly ForwardPath[];
  /** Predicates of a cell value, computed in R+2 on the cell read and registered (`mineFlags`). */
  flags?: (v: Sig) => Sig[];
}

/** The corrections of the stage, by register name. */
export type ForwardPath = 'hit_a3' | 'hit_a4' | 'hit_b' | 'hit_c' | 'same';

export interface LaneRmw {
  /** R+3: the cell as the ops two ahead and older left it (a register), and its flags. */
  mine: Sig;
  mineFlags: Sig[];
  /** R+3: the value the op one ahead gave its cell (a register), and whether that cell is this one. */
  prev: Reg;
  same: Sig;
  /** R+3: the cell as every earlier op left it, `same ? prev : mine`. */
  value: Sig;
  /** Closes the stage with the op's new cell value in R+3 (written with its word when `writing`). */
  commit(newValue: Sig): void;
}

export function laneRmw(m: ModuleBuilder, o: LaneRmwOptions): LaneRmw {
  const W = o.lanes * o.cellBits;
  if ((o.lane === null) !== (o.lanes === 1)) throw m.error('laneRmw: a lane index exactly when lanes > 1');
  const mem = m.memory('ram', { width: W, depth: o.depth, readDuringWrite: 'undefined' });
  const rd = mem.read(o.addr, o.read);
  const a1 = m.pipe(o.addr, 1, 'addr1', { reset: null });
  const a2 = m.pipe(a1, 1, 'addr2', { reset: null });
  const a3 = m.pipe(a2, 1, 'addr3', { reset: null });
  const l2 = o.lane === null ? null : m.pipe(o.lane, 2, 'lane', { reset: null });
  const l3 = l2 === null ? null : m.pipe(l2, 1, 'lane3', { reset: null });
  // The word updated last cycle (written to the block RAM from here) and the one before.
  const upd = m.reg('upd_data', W, { reset: null });
  const updAddr = m.pipe(a3, 1, 'upd_addr', { reset: null });
  const updWrite = m.pipe(o.writing, 1, 'upd_write');
  const upd2 = m.pipe(upd, 1, 'upd2_data', { reset: null });
  const off = m.const(0, 1);
  const match = (name: string, write: Sig, writeAddr: Sig, readAddr: Sig): Sig =>
    o.forwarding && !(o.drop ?? []).includes(name as ForwardPath)
      ? registeredMatch(m, name, { write, writeAddr, readAddr })
      : m.pipe(off, 1, name);
  const hitA3 = match('hit_a3', o.writing, a3, o.addr);
  const hitA4 = match('hit_a4', updWrite, updAddr, o.addr);
  const rdq = m.pipe(m.mux(hitA3, upd, m.mux(hitA4, upd2, rd)), 1, 'rdq', { reset: null });
  const hitB = match('hit_b', o.writing, a3, a1);
  const word2 = m.mux(hitB, upd, rdq);
  const w2q = m.pipe(word2, 1, 'w2q', { reset: null });
  const cells = (w: Sig): Sig[] =>
    Array.from({ length: o.lanes }, (_, i) => w.slice((i + 1) * o.cellBits - 1, i * o.cellBits));
  const cell2 = l2 === null ? word2 : muxTree(m, cells(word2), l2);
  const mine = m.pipe(cell2, 1, 'mine', { reset: null });
  const mineFlags = (o.flags?.(cell2) ?? []).map((f, i) => m.pipe(f, 1, `mine_flag${i}`, { reset: null }));
  const hitC = match('hit_c', o.writing, a3, a2);
  const same = match('same', o.writing, l3 === null ? a3 : m.cat(a3, l3), l2 === null ? a2 : m.cat(a2, l2));
  // The lane of R+3 one-hot, registered (decoded in R+2).
  const onehot = l2 === null ? null : m.pipe(m.const(1, o.lanes).shl(l2), 1, 'onehot', { reset: null });
  const prev = m.reg('prev', o.cellBits, { reset: null });
  const value = m.mux(same, prev, mine);
  const commit = (newValue: Sig): void => {
    const word3 = m.mux(hitC, upd, w2q);
    const newWord =
      onehot === null
        ? newValue
        : m.cat(
            ...cells(word3)
              .map((c, i) => m.mux(onehot.bit(i), newValue, c))
              .reverse(),
          );
    upd.next(newWord);
    prev.next(newValue);
    if (o.clear === null) mem.write(updAddr, upd, updWrite);
    else
      mem.write(m.mux(o.clear.write, o.clear.addr, updAddr), m.mux(o.clear.write, 0, upd), updWrite.or(o.clear.write));
  };
  return { mine, mineFlags, prev, same, value, commit };
}
