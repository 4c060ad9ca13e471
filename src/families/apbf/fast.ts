/**
 * A compiled software APBF/APBBF: the reference model's operations (src/model/apbf.ts) generated
 * as JavaScript specialised to one config — every size a literal, the H3 byte tables of all banks
 * combined into one table (H3 is linear, so one pass over the key bytes yields every bank's
 * hash), accumulators in locals, the "k consecutive matches in age order" test done on a bitmask
 * of per-bank matches. No allocation per op. Answers and bit arrays equal the reference model's
 * (tested); it exists for speed (the software side of `bench`), the reference model for clarity.
 *
 * Supported for k + l + spares ≤ 31 banks, hashes of up to four 32-bit H3 units and block
 * indexes of up to 30 bits; `compileApbf` returns null otherwise.
 */
import { h3Matrix } from '../../ir/h3.js';
import { codeBuffer, compileKeyOps, packedH3 } from '../../model/jsgen.js';
import { apbfLayout, hashSalt } from './model.js';
import type { ApbfParams } from './types.js';

export interface FastApbf {
  /** Key as little-endian 32-bit words at keys[off..]. */
  testAndInsert(keys: Uint32Array, off: number): boolean;
  query(keys: Uint32Array, off: number): boolean;
  insert(keys: Uint32Array, off: number): void;
  /** Column bitsets, flat: column (bank·b + part) at word (bank·b + part)·colWords. */
  readonly bits: Uint32Array;
  /** [base, count]: the circular base index and the inserts since the last shift. */
  readonly state: Int32Array;
}

export function compileApbf(p: ApbfParams): FastApbf | null {
  const L = apbfLayout(p);
  const P = L.banks;
  const b = p.bitsPerBlock;
  if (P > 31 || L.hashUnits > 4 || L.blockIndexBits > 30) return null;
  const hb = L.hashBits;
  const U = L.hashUnits;
  const unitBits = Array.from({ length: U }, (_, u) => Math.min(32, hb - 32 * u));
  // The P·U hash units, h<bank>_<unit>, packed two per word when every unit fits in 16 bits.
  const H = packedH3(
    Array.from({ length: P * U }, (_, slot) => {
      const bank = Math.floor(slot / U);
      const u = slot % U;
      return { name: `h${bank}_${u}`, rows: h3Matrix(p.seed, hashSalt(bank, u), p.keyBits, unitBits[u]!) };
    }),
    p.keyBits,
  );
  const colWords = Math.ceil(L.columnBits / 32);
  const bits = new Uint32Array(P * b * colWords);
  const state = new Int32Array(2);
  const ob = L.offsetBits;
  const { e, take } = codeBuffer();
  /** Bits [lo, lo + len) of bank `bank`'s hash (len <= 30), as an expression. */
  const field = (bank: number, lo: number, len: number): string => {
    if (len === 0) return '0';
    const q = lo >>> 5;
    const r = lo & 31;
    const mask = (2 ** len - 1) >>> 0;
    if (r + len <= 32) return `((h${bank}_${q} >>> ${r}) & ${mask})`;
    return `(((h${bank}_${q} >>> ${r}) | (h${bank}_${q + 1} << ${32 - r})) & ${mask})`;
  };
  // Bit index of part j of bank `bank` from its hash: block · 2^ob + offset_j.
  const idx = (bank: number, j: number): string => {
    const block = field(bank, b * ob, L.blockIndexBits);
    if (ob === 0) return block;
    return `((${block} << ${ob}) | ${field(bank, j * ob, ob)})`;
  };
  const matchCode = (): void => {
    e('let M = 0;');
    for (let bank = 0; bank < P; bank++) {
      const tests = Array.from({ length: b }, (_, j) => {
        const col = (bank * b + j) * colWords;
        return `((bits[${col} + (${idx(bank, j)} >>> 5)] >>> (${idx(bank, j)} & 31)) & 1)`;
      });
      e(`M |= (${tests.join(' & ')}) << ${bank};`);
    }
    // Logical order: slice i is bank (base + i) mod P. Rotate right by base.
    e(`const base = state[0];`);
    e(`const R = ((M >>> base) | (M << (${P} - base))) & ${(2 ** P - 1) >>> 0};`);
    // k consecutive matches starting at some i in 0..l.
    let run = 'R';
    for (let i = 1; i < p.k; i++) run += ` & (R >>> ${i})`;
    e(`const hit = ((${run}) & ${(2 ** (p.l + 1) - 1) >>> 0}) !== 0;`);
  };
  const insertCode = (): void => {
    e(`if (state[1] === ${p.generation}) {`);
    e(`  const nb = (state[0] + ${P - 1}) % ${P};`);
    e(`  state[0] = nb;`);
    e(`  const gone = (nb + ${p.k + p.l}) % ${P};`);
    e(`  bits.fill(0, gone * ${b * colWords}, (gone + 1) * ${b * colWords});`);
    e(`  state[1] = 0;`);
    e('}');
    e('state[1]++;');
    // Banks of logical slices 0..k-1: rotate the k low bits left by base.
    e('const nbase = state[0];');
    e(
      `const W = ((${(2 ** p.k - 1) >>> 0} << nbase) | (${(2 ** p.k - 1) >>> 0} >>> (${P} - nbase))) & ${(2 ** P - 1) >>> 0};`,
    );
    for (let bank = 0; bank < P; bank++) {
      const sets = Array.from({ length: b }, (_, j) => {
        const col = (bank * b + j) * colWords;
        return `{ const x = ${idx(bank, j)}; bits[${col} + (x >>> 5)] |= 1 << (x & 31); }`;
      });
      e(`if (W & ${1 << bank}) { ${sets.join(' ')} }`);
    }
  };
  const ops = compileKeyOps(
    { bits, state, comb: H.table },
    {
      testAndInsert: [
        ...H.code(),
        ...take(() => {
          matchCode();
          insertCode();
          e('return hit;');
        }),
      ],
      query: [
        ...H.code(),
        ...take(() => {
          matchCode();
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
    bits,
    state,
  };
}
