/**
 * A compiled software Stable Bloom filter: the reference model's operations (./model.ts)
 * generated as JavaScript specialised to one config — every size a literal, the H3 byte tables
 * of the k banks combined into one table (one pass over the key bytes yields every bank's cell
 * index), the P_i decrements of each bank unrolled, cells in one typed array, the generator
 * lanes in a Uint32Array. No allocation per op. Cells and answers equal the reference model's
 * (tested); it exists for speed (the software side of `bench`).
 */
import { h3Matrix } from '../../ir/h3.js';
import { codeBuffer, compileKeyOps, packedH3 } from '../../model/jsgen.js';
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
  const k = p.k;
  const C = p.cellsPerWord;
  const H = packedH3(
    Array.from({ length: k }, (_, b) => ({
      name: `h${b}`,
      rows: h3Matrix(p.seed, stableSalt(b), p.keyBits, L.hashBits),
    })),
    p.keyBits,
  );
  const cells = new Uint16Array(k * p.cells);
  const seeds = Uint32Array.from(laneSeeds(p.seed, L.lanes));
  const lanes = Uint32Array.from(seeds);
  const { e, take } = codeBuffer();
  const testCode = (): void => {
    const tests = Array.from({ length: k }, (_, b) => `cells[${b * p.cells} + h${b}] !== 0`);
    e(`const hit = ${tests.join(' && ')};`);
  };
  const insertCode = (): void => {
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
      e(`cells[${base} + h${b}] = ${L.max};`);
    }
    for (let l = 0; l < L.lanes; l++) {
      e(`{ let x = lanes[${l}]; x ^= x << 13; x ^= x >>> 17; x ^= x << 5; lanes[${l}] = x; }`);
    }
  };
  const ops = compileKeyOps(
    { cells, lanes, comb: H.table },
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
  return {
    testAndInsert: ops.testAndInsert as (keys: Uint32Array, off: number) => boolean,
    query: ops.query as (keys: Uint32Array, off: number) => boolean,
    insert: ops.insert as (keys: Uint32Array, off: number) => void,
    clear: () => {
      cells.fill(0);
      lanes.set(seeds);
    },
    cells,
    lanes,
  };
}
