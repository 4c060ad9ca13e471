/**
 * A compiled software A² filter: the reference model's operations (./model.ts) generated as
 * JavaScript specialised to one config — every size a literal, the k H3 byte tables combined into
 * one table (H3 is linear: one pass over the key bytes yields every hash), the bank bitsets of the
 * three sets in one typed array. No allocation per op. Answers, bit arrays and roles equal the
 * reference model's (tested); it exists for speed (the software side of `bench`).
 */
import { h3Matrix } from '../../ir/h3.js';
import { codeBuffer, compileKeyOps, packedH3 } from '../../model/jsgen.js';
import { hashSalt, indexBits, SETS } from './model.js';
import type { A2Params } from './types.js';

export interface FastA2 {
  /** Key as little-endian 32-bit words at keys[off..]. */
  testAndInsert(keys: Uint32Array, off: number): boolean;
  query(keys: Uint32Array, off: number): boolean;
  insert(keys: Uint32Array, off: number): void;
  /** Bank bitsets, flat: set s, bank u at word (s·k + u)·bankWords. */
  readonly bits: Uint32Array;
  /** [act, count, swaps]. */
  readonly state: Int32Array;
  readonly bankWords: number;
}

export function compileA2(p: A2Params): FastA2 {
  const ib = indexBits(p);
  const K = p.k;
  const H = packedH3(
    Array.from({ length: K }, (_, u) => ({ name: `h${u}`, rows: h3Matrix(p.seed, hashSalt(u), p.keyBits, ib) })),
    p.keyBits,
  );
  const bw = Math.ceil(p.bankBits / 32);
  const bits = new Uint32Array(SETS * K * bw);
  const state = new Int32Array(3);
  const { e, take } = codeBuffer();
  /** All k bits of the key set in the set whose first bank word is in local `base`. */
  const inSet = (base: string): string =>
    Array.from({ length: K }, (_, u) => `((bits[${base} + ${u * bw} + (h${u} >>> 5)] >>> (h${u} & 31)) & 1)`).join(
      ' & ',
    );
  const queryCode = (): void => {
    e('const act = state[0];');
    e(`const A = act * ${K * bw};`);
    e(`const S = ((act + 2) % 3) * ${K * bw};`);
    e(`const inA = (${inSet('A')}) !== 0;`);
    e(`const hit = inA || (${inSet('S')}) !== 0;`);
  };
  const insertCode = (): void => {
    e('if (!inA) {');
    for (let u = 0; u < K; u++) e(`  bits[A + ${u * bw} + (h${u} >>> 5)] |= 1 << (h${u} & 31);`);
    e(`  if (++state[1] === ${p.kappa}) {`);
    e(`    bits.fill(0, S, S + ${K * bw});`);
    e('    state[0] = (act + 1) % 3;');
    e('    state[1] = 0;');
    e('    state[2]++;');
    e('  }');
    e('}');
  };
  const both = (ret: string) => () => {
    queryCode();
    insertCode();
    e(ret);
  };
  const ops = compileKeyOps(
    { bits, state, comb: H.table },
    {
      testAndInsert: [...H.code(), ...take(both('return hit;'))],
      query: [
        ...H.code(),
        ...take(() => {
          queryCode();
          e('return hit;');
        }),
      ],
      insert: [...H.code(), ...take(both('return undefined;'))],
    },
  );
  return {
    testAndInsert: ops.testAndInsert as (keys: Uint32Array, off: number) => boolean,
    query: ops.query as (keys: Uint32Array, off: number) => boolean,
    insert: ops.insert as (keys: Uint32Array, off: number) => void,
    bits,
    state,
    bankWords: bw,
  };
}
