/**
 * A compiled software importance-aware Bloom filter (the pipeline's variant, ./model.ts): the
 * reference model's operations generated as JavaScript specialised to one config — sizes as
 * literals, the k banks' H3 byte tables combined into one, the P_i deletes of each bank
 * unrolled, cells in one typed array. The set value (importance, or MAX for M-insert) goes in
 * through a one-element state array. No allocation per op. Cells and answers equal the
 * reference model's (tested); it exists for speed (the software side of `bench`).
 */
import { h3Matrix } from '../../ir/h3.js';
import { codeBuffer, compileKeyOps, packedH3 } from '../../model/jsgen.js';
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
  const k = p.k;
  const C = p.cellsPerWord;
  const H = packedH3(
    Array.from({ length: k }, (_, b) => ({ name: `h${b}`, rows: h3Matrix(p.seed, ibfSalt(b), p.keyBits, L.hashBits) })),
    p.keyBits,
  );
  const cells = new Uint16Array(k * p.cells);
  const seeds = Uint32Array.from(ibfLaneSeeds(p.seed, L.lanes));
  const lanes = Uint32Array.from(seeds);
  const val = new Uint16Array(1);
  const { e, take } = codeBuffer();
  const testCode = (): void => {
    const tests = Array.from({ length: k }, (_, b) => `cells[${b * p.cells} + h${b}] !== 0`);
    e(`const hit = ${tests.join(' && ')};`);
  };
  const insertCode = (): void => {
    e('const v = val[0];');
    for (let b = 0; b < k; b++) {
      const Pi = L.perBank[b]!;
      const base = b * p.cells;
      if (Pi > 0) {
        e(`{ const w = ${base} + (h${b} & ${~(C - 1) >>> 0});`);
        if (L.offsetBits > 0 && Pi < C) {
          const lane = Math.floor(b / L.perLane);
          const shift = (b % L.perLane) * L.offsetBits;
          e(`  const r = lanes[${lane}] >>> ${shift};`);
          for (let t = 0; t < Pi; t++)
            e(`  { const j = w + ((r + ${t}) & ${C - 1}); if (cells[j] !== 0) cells[j]--; }`);
        } else {
          for (let t = 0; t < Pi; t++) e(`  if (cells[w + ${t}] !== 0) cells[w + ${t}]--;`);
        }
        e('}');
      }
      e(`cells[${base} + h${b}] = v;`);
    }
    for (let l = 0; l < L.lanes; l++)
      e(`{ let x = lanes[${l}]; x ^= x << 13; x ^= x >>> 17; x ^= x << 5; lanes[${l}] = x; }`);
  };
  const ops = compileKeyOps(
    { cells, lanes, val, comb: H.table },
    {
      testAndInsert: [
        ...H.code(),
        ...take(() => {
          testCode();
          insertCode();
          e('return hit;');
        }),
      ],
      query: [
        ...H.code(),
        ...take(() => {
          testCode();
          e('return hit;');
        }),
      ],
      insert: [...H.code(), ...take(insertCode)],
    },
  );
  const setValue = (imp: number): boolean => {
    if (badImportance(p.max, imp)) return false;
    val[0] = p.insert === 'max' ? p.max : imp;
    return true;
  };
  return {
    testAndInsert: (keys, off, imp) => (setValue(imp) ? (ops.testAndInsert(keys, off) as boolean) : null),
    query: (keys, off) => ops.query(keys, off) as boolean,
    insert: (keys, off, imp) => {
      if (!setValue(imp)) return false;
      ops.insert(keys, off);
      return true;
    },
    clear: () => {
      cells.fill(0);
      lanes.set(seeds);
    },
    cells,
    lanes,
  };
}
