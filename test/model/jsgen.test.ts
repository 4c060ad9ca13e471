/**
 * The generated-code helpers behind every family's compiled software filter: packed H3 tables
 * give each unit's hash equal to the reference H3, and compiled ops close over their state.
 */
import { describe, expect, it } from 'vitest';
import { h3Matrix, h3Reference, splitMix64 } from '../../src/ir/h3.js';
import { codeBuffer, compileKeyOps, packedH3 } from '../../src/model/jsgen.js';
import { keyWords } from '../../src/families/streamKit.js';

describe('packedH3', () => {
  const cases: { keyBits: number; widths: number[] }[] = [
    { keyBits: 1, widths: [1] },
    { keyBits: 8, widths: [3, 16, 16] },
    { keyBits: 64, widths: [12, 12, 12, 12, 12] },
    { keyBits: 64, widths: [17, 5] },
    { keyBits: 100, widths: [32, 32, 7] },
    { keyBits: 512, widths: [16] },
  ];
  for (const { keyBits, widths } of cases) {
    it(`${keyBits}-bit keys, units of ${widths.join(', ')} bits: every unit equals the reference H3`, () => {
      const units = widths.map((w, i) => ({ name: `u${i}`, rows: h3Matrix(7, 100 + i, keyBits, w) }));
      const H = packedH3(units, keyBits);
      expect(H.words).toBe(widths.every((w) => w <= 16) ? Math.ceil(widths.length / 2) : widths.length);
      const ops = compileKeyOps(
        { comb: H.table },
        { all: [...H.code(), `return [${units.map((u) => u.name).join(', ')}];`] },
      );
      const rng = splitMix64(BigInt(keyBits));
      const mask = (1n << BigInt(keyBits)) - 1n;
      const keys = Array.from({ length: 200 }, () => {
        let k = 0n;
        for (let i = 0; i < keyBits; i += 64) k = (k << 64n) | rng.next();
        return k & mask;
      });
      const words = keyWords(keys, keyBits);
      const kw = Math.ceil(keyBits / 32);
      keys.forEach((key, i) => {
        const got = ops.all(words, i * kw) as number[];
        expect(got.map(BigInt)).toEqual(units.map((u) => h3Reference(u.rows, key)));
      });
    });
  }
});

describe('compileKeyOps and codeBuffer', () => {
  it('binds state by name, so generated ops read and write it', () => {
    const bits = new Uint32Array(4);
    const { e, take } = codeBuffer();
    const body = take(() => {
      e('bits[keys[off] & 3]++;');
      e('return bits[keys[off] & 3];');
    });
    expect(take(() => e('x'))).toEqual(['x']);
    const ops = compileKeyOps({ bits }, { bump: body });
    const keys = Uint32Array.of(5, 6, 5);
    expect([ops.bump(keys, 0), ops.bump(keys, 1), ops.bump(keys, 2)]).toEqual([1, 1, 2]);
    expect([...bits]).toEqual([0, 2, 1, 0]);
  });
});
