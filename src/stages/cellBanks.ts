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
 */
import type { ModuleBuilder, Sig } from '../dsl/module.js';
import { cellWordBank } from './cellWord.js';
import { wideH3 } from './hash.js';

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
