/**
 * Stage: the k hashed word-local cell banks of the Stable Bloom filter and the importance-aware
 * Bloom filter (src/families/stable, src/families/ibf): bank i hashes the key with H3 (salt
 * `salt(i)`) to a word address (high bits) and a cell offset (low bits) and runs a `cellWordBank`
 * (./cellWord.ts) on it. Made here so that both families build the same netlist from one place.
 *
 * `cellWordBanks`: called with the op in R+1 (`valid1`, `ins1`: the pipeline's registered fields
 *   two stages after the key), it makes at the top level the write-side registers every bank
 *   shares — `ins_write` (the op in R+2 writes), `write_en` (an insert in R+2 or the sweep),
 *   `sweep_w` and `sweep_waddr` (the sweep writes now, there) — then, in scope `bank<i>`, bank
 *   i's hash (`wideH3`, 32-bit units in `chunkBits`-bit key chunks, registers `hash…`) and its
 *   `cellWordBank` (decrement mask: bits [i·C, i·C + C) of `dec1`; set value `set1` if given,
 *   else Max). Returns each bank's registered test (`matchName`, valid in R+3).
 * `cellBankControl`: what stands beside the input registers (A) of such a pipeline — the
 *   generator lanes (`decrementLanes`, stepped by `ins`, reset by `clear`), the reset/clear sweep
 *   of every word (`clearSweep`, lookahead form), the response queue's occupancy (none without a
 *   queue: a `direct` lane shard) and in_ready: low while the queue would be full after this
 *   cycle's accept, while the sweep runs, and while a clear is accepted or in the input
 *   registers (its sweep is not yet visible in sweep_busy).
 */
import type { ModuleBuilder, Sig } from '../dsl/module.js';
import { cellWordBank } from './cellWord.js';
import { clearSweep } from './clear.js';
import { decrementLanes } from './decrementLanes.js';
import { wideH3 } from './hash.js';
import { decodeOp } from './input.js';
import { occupancy, type Occupancy } from './responseQueue.js';

/** Name of bank i's block RAM (as the scopes `bank<i>` and the stage's memory `ram` make it). */
export function cellBankMemoryName(bank: number): string {
  return `bank${bank}_ram`;
}

export interface CellWordBanksOptions {
  banks: number;
  cellBits: number;
  /** Cells per word C (a power of two). */
  cellsPerWord: number;
  /** Words per bank. */
  depth: number;
  /** Bits of a bank's hash (log2 cells) and of its cell offset (log2 C). */
  hashBits: number;
  offsetBits: number;
  /** The key, registered (the hash takes two cycles: the op reaches R when its hash does). */
  key: Sig;
  seed: number;
  salt: (bank: number) => number;
  chunkBits: number;
  /** An op is in R (read enable). */
  read: Sig;
  /** The op in R+1: valid and inserting (`ins1` = both, computed by the caller). */
  ins1: Sig;
  /** The op in R+1's decrement masks, C bits per bank, bank 0 lowest. */
  dec1: Sig;
  /** The op in R+1's set value; absent: Max. */
  set1?: Sig;
  /** The sweep: `active` it writes a zero next cycle, at `addr` (registered here). */
  sweep: { active: Sig; addr: Sig };
  forwarding: boolean;
  matchName: string;
}

export function cellWordBanks(m: ModuleBuilder, o: CellWordBanksOptions): Sig[] {
  const writing = m.pipe(o.ins1, 1, 'ins_write');
  const writeEn = m.pipe(o.ins1.or(o.sweep.active), 1, 'write_en');
  const sweep = {
    issue: o.sweep.active,
    write: m.pipe(o.sweep.active, 1, 'sweep_w'),
    addr: m.pipe(o.sweep.addr, 1, 'sweep_waddr', { reset: null }),
  };
  const C = o.cellsPerWord;
  return Array.from({ length: o.banks }, (_, i) =>
    m.scope(`bank${i}`, () => {
      const hash = wideH3(m, {
        key: o.key,
        bits: o.hashBits,
        unitBits: 32,
        seed: o.seed,
        salt: () => o.salt(i),
        chunkBits: o.chunkBits,
        name: 'hash',
      });
      return cellWordBank(m, {
        cellBits: o.cellBits,
        cells: C,
        depth: o.depth,
        addr: hash.slice(o.hashBits - 1, o.offsetBits),
        offset: o.offsetBits === 0 ? null : hash.slice(o.offsetBits - 1, 0),
        read: o.read,
        ins1: o.ins1,
        dec1: o.dec1.slice((i + 1) * C - 1, i * C),
        set1: o.set1,
        writing,
        writeEn,
        sweep,
        forwarding: o.forwarding,
        matchName: o.matchName,
      }).match;
    }),
  );
}

export interface CellBankControlOptions {
  /** The generator lanes' seeds (none: one cell per word). */
  seeds: readonly number[];
  banks: number;
  offsetBits: number;
  perLane: number;
  addrBits: number;
  depth: number;
  /** The op in the input registers inserts (steps the lanes) / clears. */
  ins: Sig;
  clear: Sig;
  /** The input's accept, the op on the wires and the clear op's code. */
  fire: Sig;
  op: Sig;
  clearCode: number;
  /** The response queue's capacity; null: no queue. */
  queue: number | null;
  /** Closes the input's in_ready with the condition that holds it low. */
  holdReady: (busy: Sig) => void;
}

export function cellBankControl(
  m: ModuleBuilder,
  o: CellBankControlOptions,
): { offsets: Sig | undefined; sweep: { active: Sig; addr: Sig }; occ: Occupancy | null } {
  const offsets = decrementLanes(m, {
    seeds: o.seeds,
    banks: o.banks,
    offsetBits: o.offsetBits,
    perLane: o.perLane,
    step: o.ins,
    clear: o.clear,
  });
  const sweep = clearSweep(m, { addrBits: o.addrBits, depth: o.depth });
  const occ = o.queue !== null ? occupancy(m, { capacity: o.queue }) : null;
  const { active } = sweep.connectLookahead(o.clear);
  const fullAfter = occ ? occ.fullAfter(o.fire) : null;
  const clearOnWire = o.fire.and(decodeOp(o.op, [o.clearCode]));
  o.holdReady((fullAfter ? fullAfter.or(sweep.busy) : sweep.busy).or(o.clear).or(clearOnWire));
  return { offsets, sweep: { active, addr: sweep.addr }, occ };
}
