/**
 * A compiled software importance-aware Bloom filter (the pipeline's variant, ./model.ts): the
 * reference model's operations generated as JavaScript specialised to one config by the
 * word-local cell bank's compiler (src/model/wordCellBank.ts). The set value (importance, or MAX
 * for M-insert) goes in through its one-element state array. No allocation per op. Cells and answers equal the
 * reference model's (tested); it exists for speed (the software side of `bench`).
 */
import { compileWordCellBank } from '../../model/wordCellBank.js';
import { badImportance, ibfLaneSeeds, ibfLayout, ibfSalt } from './model.js';
import type { IbfParams } from './types.js';

export interface FastIbf {
  /** Key as little-endian 32-bit words at keys[off..]; null: refused for its importance. */
  testAndInsert(keys: Uint32Array, off: number, imp: number): boolean | null;
  query(keys: Uint32Array, off: number): boolean;
  /** False: refused for its importance. */
  insert(keys: Uint32Array, off: number, imp: number): boolean;
  clear(): void;
  /** Every bank's cells, bank i at [i·cells, (i+1)·cells). */
  readonly cells: Uint16Array;
  readonly lanes: Uint32Array;
}

export function compileIbf(p: IbfParams): FastIbf {
  const L = ibfLayout(p);
  const ops = compileWordCellBank(p, ibfLaneSeeds(p.seed, L.lanes), ibfSalt, null);
  const setValue = (imp: number): boolean => {
    if (badImportance(p.max, imp)) return false;
    ops.val[0] = p.insert === 'max' ? p.max : imp;
    return true;
  };
  return {
    testAndInsert: (keys, off, imp) => (setValue(imp) ? ops.testAndInsert(keys, off) : null),
    query: (keys, off) => ops.query(keys, off),
    insert: (keys, off, imp) => {
      if (!setValue(imp)) return false;
      ops.insert(keys, off);
      return true;
    },
    clear: ops.clear,
    cells: ops.cells,
    lanes: ops.lanes,
  };
}
