/**
 * A compiled software Stable Bloom filter: the reference model's operations (./model.ts)
 * generated as JavaScript specialised to one config by the word-local cell bank's compiler
 * (src/model/wordCellBank.ts), an insert writing Max. No allocation per op. Cells and answers
 * equal the reference model's (tested); it exists for speed (the software side of `bench`).
 */
import { compileWordCellBank } from '../../model/wordCellBank.js';
import { laneSeeds, stableLayout, stableSalt } from './model.js';
import type { StableParams } from './types.js';

export interface FastStable {
  /** Key as little-endian 32-bit words at keys[off..]. */
  testAndInsert(keys: Uint32Array, off: number): boolean;
  query(keys: Uint32Array, off: number): boolean;
  insert(keys: Uint32Array, off: number): void;
  clear(): void;
  /** Every bank's cells, bank i at [i·cells, (i+1)·cells). */
  readonly cells: Uint16Array;
  readonly lanes: Uint32Array;
}

export function compileStable(p: StableParams): FastStable {
  const L = stableLayout(p);
  const { testAndInsert, query, insert, clear, cells, lanes } = compileWordCellBank(
    p,
    laneSeeds(p.seed, L.lanes),
    stableSalt,
    L.max,
  );
  return { testAndInsert, query, insert, clear, cells, lanes };
}
