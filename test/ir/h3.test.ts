import { describe, expect, it } from 'vitest';
import { buildH3Matrix, h3FromWords, h3Matrix, h3Reference, h3Tables } from '../../src/ir/h3.js';
import { Rng } from '../../src/util/rng.js';
import { toWords } from '../../sim/words.js';

describe('H3 hash', () => {
  it('is deterministic in (seed, salt) and changes with either (built afresh, not from the memo)', () => {
    expect(buildH3Matrix(1, 0, 64, 12)).toEqual(buildH3Matrix(1, 0, 64, 12));
    expect(buildH3Matrix(1, 0, 64, 12)).not.toEqual(buildH3Matrix(2, 0, 64, 12));
    expect(buildH3Matrix(1, 0, 64, 12)).not.toEqual(buildH3Matrix(1, 1, 64, 12));
    // The memo returns what the generator builds.
    expect(h3Matrix(1, 0, 64, 12)).toEqual(buildH3Matrix(1, 0, 64, 12));
  });

  it('memoised: the same matrix and tables are returned, frozen, and a different key is not mixed up', () => {
    const rows = h3Matrix(7, 1, 64, 10);
    expect(h3Matrix(7, 1, 64, 10)).toBe(rows);
    expect(Object.isFrozen(rows)).toBe(true);
    expect(h3Tables(rows, 64)).toBe(h3Tables(rows, 64));
    expect(h3Matrix(7, 1, 64, 11)).not.toBe(rows);
    expect(h3Matrix(7, 1, 64, 11).slice(0, 10)).toEqual([...rows]);
    expect(rows).toEqual(buildH3Matrix(7, 1, 64, 10));
    // The generator takes salts as unsigned 32-bit values, so -1 and 2^32 - 1 agree (built afresh).
    expect(buildH3Matrix(7, -1, 64, 4)).toEqual(buildH3Matrix(7, 2 ** 32 - 1, 64, 4));
    expect(buildH3Matrix(7, -1, 64, 4)).not.toEqual(buildH3Matrix(7, 2 ** 32 - 2, 64, 4));
    expect(h3Matrix(7, -1, 64, 4)).toBe(h3Matrix(7, 2 ** 32 - 1, 64, 4));
  });

  it('rejects seeds outside 32 bits', () => {
    expect(() => h3Matrix(-1, 0, 8, 4)).toThrow(/seed/);
    expect(() => h3Matrix(2 ** 32, 0, 8, 4)).toThrow(/seed/);
  });

  for (const keyBits of [8, 13, 32, 64, 100, 128, 512]) {
    it(`byte tables equal the matrix definition at ${keyBits}-bit keys`, () => {
      const rows = h3Matrix(42, 3, keyBits, 20);
      const tables = h3Tables(rows, keyBits);
      const rng = new Rng(keyBits);
      for (let i = 0; i < 200; i++) {
        const key = rng.bits(keyBits);
        expect(h3FromWords(tables, toWords(key, keyBits), Math.ceil(keyBits / 8))).toBe(Number(h3Reference(rows, key)));
      }
    });
  }

  it('is linear over GF(2): h(a ^ b) = h(a) ^ h(b)', () => {
    const rows = h3Matrix(5, 0, 64, 16);
    const rng = new Rng(9);
    for (let i = 0; i < 50; i++) {
      const a = rng.bits(64);
      const b = rng.bits(64);
      expect(h3Reference(rows, a ^ b)).toBe(h3Reference(rows, a) ^ h3Reference(rows, b));
    }
  });
});
