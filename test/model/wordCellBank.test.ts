/**
 * The word-local cell bank kit (src/model/wordCellBank.ts) on its own: the reference banks and the
 * compiled engine agree cell for cell with a constant set value and with the value in val[0];
 * words, memories and restore are inverse; the cellsPerWord sizing and its refusals.
 */
import { describe, expect, it } from 'vitest';
import {
  adjacentMask,
  compileWordCellBank,
  decrementsPerBank,
  wordCellLayout,
  wordCellsPerWord,
  WordCellBank,
  xorshiftLaneSeeds,
  type WordCellBankParams,
} from '../../src/model/wordCellBank.js';
import { Rng } from '../../src/util/rng.js';

const P: WordCellBankParams = { k: 3, cells: 256, cellsPerWord: 8, d: 3, P: 7, seed: 5, keyBits: 64 };
const salt = (b: number): number => b + 1;
const seeds = xorshiftLaneSeeds(P.seed, wordCellLayout(P).lanes, 0x1234n);
const words = (key: bigint): Uint32Array => Uint32Array.of(Number(key & 0xffffffffn), Number(key >> 32n));

describe('word-local cell bank kit', () => {
  it('layout, decrements per bank, masks', () => {
    const L = wordCellLayout(P);
    expect(L).toMatchObject({
      offsetBits: 3,
      addrBits: 5,
      hashBits: 8,
      perLane: 10,
      lanes: 1,
      wordBits: 24,
      depth: 32,
    });
    expect(decrementsPerBank(7, 3)).toEqual([3, 2, 2]);
    expect(adjacentMask(6, 3, 8)).toBe(0b11000001);
    expect(adjacentMask(0, 32, 32)).toBe(0xffffffff);
    expect(seeds.every((s) => s !== 0)).toBe(true);
  });

  for (const value of [5, null] as const)
    it(`the compiled engine equals the reference banks (set value ${value ?? 'from val[0]'})`, () => {
      const ref = new WordCellBank(P, wordCellLayout(P), seeds, salt);
      const fast = compileWordCellBank(P, seeds, salt, value);
      const rng = new Rng(3);
      for (let i = 0; i < 3000; i++) {
        const key = rng.next64() & 0xffffn; // a small key space: repeats, hits and decrements of set cells
        const v = value ?? 1 + Math.floor(rng.float() * 7);
        fast.val[0] = v;
        const idx = ref.load(key);
        const op = rng.float();
        if (op < 0.3) expect(fast.query(words(key), 0)).toBe(ref.test(idx));
        else if (op < 0.6) {
          fast.insert(words(key), 0);
          ref.apply(idx, v);
        } else {
          const hit = ref.test(idx);
          ref.apply(idx, v);
          expect(fast.testAndInsert(words(key), 0)).toBe(hit);
        }
        if (i === 2000) {
          ref.clear();
          fast.clear();
        }
      }
      ref.cells.forEach((c, b) =>
        expect(Array.from(fast.cells.subarray(b * P.cells, (b + 1) * P.cells))).toEqual(Array.from(c)),
      );
      expect(Array.from(fast.lanes)).toEqual(Array.from(ref.lanes));
      expect(ref.zeroFraction()).toBeGreaterThan(0);
      expect(ref.zeroFraction()).toBeLessThan(1);
    });

  it('memories and restore: a copy loaded from the words and lanes is the same bank', () => {
    const a = new WordCellBank(P, wordCellLayout(P), seeds, salt);
    const rng = new Rng(9);
    for (let i = 0; i < 500; i++) a.apply(a.load(rng.next64()), 1 + (i % 7));
    const mems = a.memories((b) => `m${b}`);
    expect(mems.map((m) => [m.name, m.depth])).toEqual([
      ['m0', 32],
      ['m1', 32],
      ['m2', 32],
    ]);
    const b = new WordCellBank(P, wordCellLayout(P), seeds, salt);
    b.restore(
      (bank, addr) => mems[bank]!.word(addr),
      (l) => BigInt(a.lanes[l]!),
    );
    expect(b.cells).toEqual(a.cells);
    expect(Array.from(b.lanes)).toEqual(Array.from(a.lanes));
    expect(b.bankZeroFractions()).toEqual(a.bankZeroFractions());
  });

  it('cellsPerWord: the default fills a block RAM word, refusals name the field', () => {
    const fail = (field: string, message: string): never => {
      throw new Error(`${field}: ${message}`);
    };
    expect(wordCellsPerWord({ d: 2, cells: 1024, given: undefined, target: 'ice40-hx8k' }, fail)).toBe(8);
    expect(wordCellsPerWord({ d: 2, cells: 8, given: undefined, target: 'ice40-hx8k' }, fail)).toBe(4);
    expect(wordCellsPerWord({ d: 3, cells: 64, given: 2, target: 'ice40-hx8k' }, fail)).toBe(2);
    expect(() => wordCellsPerWord({ d: 2, cells: 1, given: undefined, target: 'ecp5' }, fail)).toThrow(/^cells:/);
    expect(() => wordCellsPerWord({ d: 2, cells: 16, given: 16, target: 'ecp5' }, fail)).toThrow(
      /^cellsPerWord: must be at most/,
    );
    expect(() => wordCellsPerWord({ d: 16, cells: 1024, given: 32, target: 'ice40-hx8k' }, fail)).toThrow(
      /wider than 4/,
    );
  });
});
