/**
 * Stage: read-modify-write of one cell of a block RAM bank whose words pack `lanes` cells of
 * `cellBits` bits (counters, timers, …), one op per cycle, exact under back-to-back ops on the
 * same cell or on cells sharing a word.
 *
 * Timing (relative to the cycle R in which an op presents its word address and lane, both
 * registers): the block RAM returns the word at R+1; in R+3 the caller computes the cell's new
 * value (`commit`); the update is registered as its parts — the new value (`prev`), the word it
 * goes into (`upd_base`), the lane one-hot, address and write flag — and the word they make,
 * `upd` = `upd_base` with the lane replaced by `prev` (one LUT after registers), is written at the
 * end of R+4. So the loop from one op's new value to the next op's is `same ? prev : mine` → the
 * caller's logic → `commit` → `prev`, with neither the block RAM nor the word merge in it.
 *
 * Four updates land after an op read its word: the op four ahead writes at the op's own read edge
 * (a read-during-write collision: the memory is declared 'undefined', so the word read is not
 * defined), the ops three, two and one ahead after it. Each is corrected twice, every selector a
 * compare made a cycle early and registered:
 *   - the word, for the write-back: `rdq` (the word at the end of R+1) takes `upd` when the op
 *     three ahead updated it (`hit_a3`), else `upd2` (the word before) for the op four ahead
 *     (`hit_a4`), else the block RAM's output; the word of R+2 takes `upd` for the op two ahead
 *     (`hit_b`), the word written back in R+3 is built on `upd` for the op one ahead (`hit_c`);
 *   - the cell, for the caller: taken out of the block RAM's word at R+1 (the lane mux right after
 *     the block RAM) — or out of `upd2` when the op four ahead wrote the word (`hit_a4`: the read
 *     collided, whatever lane that op changed) — replaced by `prev` (the value of the update one
 *     cycle ago) when the op three ahead updated this very cell (`same_a3`), by `prev` at R+2 for
 *     the op two ahead (`same_b`), registered as `mine` with its `flags`, and in R+3
 *     `value` = `same ? prev : mine` for the op one ahead (`same`).
 * So every op sees, and writes back, the words as every earlier op left them: the sequential
 * semantics at one op per cycle. An update can be made void late in R+3 (`commit`'s `skip`, e.g. a
 * saturated counter that must not change): it goes into one register, `upd_void`, which gates
 * the write enable and every correction that would take the void update (each selector is then
 * one more input of the same LUT). `flags(v)` gives predicates of the cell value (e.g. "at its
 * maximum") computed in R+2 and registered beside `mine`, so the caller needs only the matching
 * predicate of its own new value in a register to have the predicate of `value` one LUT after
 * registers.
 *
 * Registers (in the caller's scope): `addr1`..`addr3`, `lane1`..`lane3`, `onehot`, `prev`,
 * `upd_base`, `upd_onehot`, `upd_addr`, `upd_write`, `upd_void`, `upd2`, the registered
 * compares named after their corrections, `rdq`, `cell1`, `w2q`, `mine`, `mine_flag<i>`.
 * Memory `ram` (lanes·cellBits × depth). A clear port writes zero words through the same write
 * port (`clear.write` high: a zero at `clear.addr` this cycle); the caller keeps ops out of R..R+4
 * while it does (a clear is never forwarded). `forwarding: false` drops every correction, `drop`
 * single ones; both exist so tests can show that they catch the hazards (under read-during-write
 * poisoning).
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
  /** The op now in R+3 writes its word (a register). */
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
export type ForwardPath = 'hit_a3' | 'hit_a4' | 'hit_b' | 'hit_c' | 'same_a3' | 'same_b' | 'same';

export const FORWARD_PATHS: readonly ForwardPath[] = [
  'hit_a3',
  'hit_a4',
  'hit_b',
  'hit_c',
  'same_a3',
  'same_b',
  'same',
];

export interface LaneRmw {
  /** R+3: the cell as the ops two ahead and older left it (a register), and its flags. */
  mine: Sig;
  mineFlags: Sig[];
  /**
   * R+3: the value the op one ahead gave its cell (a register), and whether that cell is this one
   * and the update was not void (one LUT of two registers).
   */
  prev: Reg;
  same: Sig;
  /** R+3: the cell as every earlier op left it, `same ? prev : mine`. */
  value: Sig;
  /**
   * Closes the stage with the op's new cell value in R+3, written with its word when `writing` —
   * unless `skip` (a late signal: it only goes into a register): then the update is void, nothing
   * is written and no later op sees it, and `newValue` does not matter.
   */
  commit(newValue: Sig, skip?: Sig): void;
}

export function laneRmw(m: ModuleBuilder, o: LaneRmwOptions): LaneRmw {
  const W = o.lanes * o.cellBits;
  if ((o.lane === null) !== (o.lanes === 1)) throw m.error('laneRmw: a lane index exactly when lanes > 1');
  const mem = m.memory('ram', { width: W, depth: o.depth, readDuringWrite: 'undefined' });
  const rd = mem.read(o.addr, o.read);
  const nr = { reset: null };
  const a1 = m.pipe(o.addr, 1, 'addr1', nr);
  const a2 = m.pipe(a1, 1, 'addr2', nr);
  const a3 = m.pipe(a2, 1, 'addr3', nr);
  const lanes =
    o.lane === null
      ? null
      : (() => {
          const l1 = m.pipe(o.lane, 1, 'lane1', nr);
          const l2 = m.pipe(l1, 1, 'lane2', nr);
          return { l0: o.lane, l1, l2, l3: m.pipe(l2, 1, 'lane3', nr) };
        })();
  const cellAt = (a: Sig, l: 'l0' | 'l1' | 'l2' | 'l3'): Sig => (lanes === null ? a : m.cat(a, lanes[l]));
  // The update registered as its parts; `upd` is the word they make.
  const prev = m.reg('prev', o.cellBits, nr);
  const updBase = m.reg('upd_base', W, nr);
  const updOnehot = lanes === null ? null : m.reg('upd_onehot', o.lanes, nr);
  const updAddr = m.pipe(a3, 1, 'upd_addr', nr);
  const updWrite = m.pipe(o.writing, 1, 'upd_write');
  // The update of last cycle was void (`commit`'s `skip`): nothing of it is written or forwarded.
  const voided = m.reg('upd_void', 1);
  const live = voided.not();
  const cells = (w: Sig): Sig[] =>
    Array.from({ length: o.lanes }, (_, i) => w.slice((i + 1) * o.cellBits - 1, i * o.cellBits));
  const upd =
    updOnehot === null
      ? prev
      : m.cat(
          ...cells(updBase)
            .map((c, i) => m.mux(updOnehot.bit(i), prev, c))
            .reverse(),
        );
  const upd2 = m.pipe(upd, 1, 'upd2', nr);
  const off = m.const(0, 1);
  const match = (name: ForwardPath, write: Sig, writeAddr: Sig, readAddr: Sig): Sig =>
    o.forwarding && !(o.drop ?? []).includes(name)
      ? registeredMatch(m, name, { write, writeAddr, readAddr })
      : m.pipe(off, 1, name);
  // R: compares with the ops three (updating now) and four (updated last cycle) ahead.
  const hitA3 = match('hit_a3', o.writing, a3, o.addr);
  const hitA4 = match('hit_a4', updWrite.and(live), updAddr, o.addr);
  const sameA3 = match('same_a3', o.writing, cellAt(a3, 'l3'), cellAt(o.addr, 'l0'));
  // R+1: the word and the cell, corrected.
  const rdq = m.pipe(m.mux(hitA3.and(live), upd, m.mux(hitA4, upd2, rd)), 1, 'rdq', nr);
  // The op four ahead's write collided with the read: its word (`upd2`) holds this cell then,
  // whichever lane it changed; the op three ahead's update is `prev` when it was this cell.
  const lane1 = (w: Sig): Sig => (lanes === null ? w : muxTree(m, cells(w), lanes.l1));
  const cell1 = m.pipe(m.mux(sameA3.and(live), prev, m.mux(hitA4, lane1(upd2), lane1(rd))), 1, 'cell1', nr);
  const hitB = match('hit_b', o.writing, a3, a1);
  const sameB = match('same_b', o.writing, cellAt(a3, 'l3'), cellAt(a1, 'l1'));
  // R+2: the op two ahead's update.
  const w2q = m.pipe(m.mux(hitB.and(live), upd, rdq), 1, 'w2q', nr);
  const cell2 = m.mux(sameB.and(live), prev, cell1);
  const mine = m.pipe(cell2, 1, 'mine', nr);
  const mineFlags = (o.flags?.(cell2) ?? []).map((f, i) => m.pipe(f, 1, `mine_flag${i}`, nr));
  const hitC = match('hit_c', o.writing, a3, a2);
  const same = match('same', o.writing, cellAt(a3, 'l3'), cellAt(a2, 'l2')).and(live);
  // The lane of R+3 one-hot, registered (decoded in R+2).
  const onehot = lanes === null ? null : m.pipe(m.const(1, o.lanes).shl(lanes.l2), 1, 'onehot', nr);
  // R+3: the op one ahead's update.
  const value = m.mux(same, prev, mine);
  const commit = (newValue: Sig, skip?: Sig): void => {
    prev.next(newValue);
    voided.next(skip ?? 0);
    updBase.next(m.mux(hitC.and(live), upd, w2q));
    if (updOnehot && onehot) updOnehot.next(onehot);
    const wr = updWrite.and(live);
    if (o.clear === null) mem.write(updAddr, upd, wr);
    else mem.write(m.mux(o.clear.write, o.clear.addr, updAddr), m.mux(o.clear.write, 0, upd), wr.or(o.clear.write));
  };
  return { mine, mineFlags, prev, same, value, commit };
}
