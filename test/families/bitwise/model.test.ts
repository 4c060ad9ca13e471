/**
 * The bitwise Bloom filter's reference model against the libBf manual ("Multisets" → "Bitwise"):
 * the count of a lone item is exact with the weights 2^{Σ_{j<i} w_j} (the manual's printed
 * exponent is not), the carry follows "insert x into V_1 and remove it from V_0" literally, the
 * top level saturates, and a carry can zero a counter another item needs (a false negative).
 */
import { describe, expect, it } from 'vitest';
import { deriveBitwise } from '../../../src/families/bitwise/config.js';
import { BitwiseModel, countAsPrinted, countOf, maxCount } from '../../../src/families/bitwise/model.js';
import type { BitwiseDerived } from '../../../src/families/bitwise/types.js';
import { keyOfIndex } from '../../../src/model/workloads.js';

const cfg = (levels: { cells: number; width: number; k: number }[], extra: Record<string, unknown> = {}) =>
  deriveBitwise({ name: 't', filter: 'bitwise', levels, keyBits: 64, seed: 3, ...extra });

/** Keys whose level-0 counters share exactly bank `bank`'s counter (and no other counter anywhere). */
function sharingPair(c: BitwiseDerived, bank: number): [bigint, bigint] {
  const m = new BitwiseModel(c);
  const seen = new Map<number, { key: bigint; pos: number[][] }>();
  for (let i = 0; ; i++) {
    const key = keyOfIndex(i, c.keyBits, 9);
    const pos = m.positions(key);
    const other = seen.get(pos[0]![bank]!);
    if (other) {
      const shared = pos.flatMap((lv, li) => lv.filter((x, j) => other.pos[li]![j] === x));
      if (shared.length === 1) return [other.key, key];
    } else seen.set(pos[0]![bank]!, { key, pos });
  }
}

describe('bitwise model: the count', () => {
  it("w = (1, 1, 1) as in the manual's figure: a lone item counts 0..7 exactly, digits are its binary digits", () => {
    const c = cfg([
      { cells: 256, width: 1, k: 2 },
      { cells: 256, width: 1, k: 2 },
      { cells: 256, width: 1, k: 2 },
    ]);
    const m = new BitwiseModel(c);
    const key = keyOfIndex(1, 64, 1);
    for (let n = 1; n <= 7; n++) {
      expect(m.insert(key)).toBe(true);
      const r = m.count(key);
      expect(r.minima).toEqual([n & 1, (n >> 1) & 1, (n >> 2) & 1]);
      expect(r.count).toBe(BigInt(n));
      expect(countOf(c.levels, r.minima)).toBe(BigInt(n));
    }
    // The formula as printed, Σ c_i 2^{Σ_{j=0}^{i} w_i}, would count one add as 2 and 7 adds as 14.
    expect(countAsPrinted(c.levels, [1, 0, 0])).toBe(2n);
    expect(countAsPrinted(c.levels, [1, 1, 1])).toBe(14n);
    // Saturation: the eighth add would carry out of V_2; it is dropped and flagged.
    expect(m.count(key).sat).toBe(true);
    expect(m.insert(key)).toBe(false);
    expect(m.count(key).count).toBe(7n);
    expect(m.saturatedAdds).toBe(1);
  });

  it('w = (4, 4, 8): a lone item counts exactly up to 2^16 − 1, with the weights 1, 16, 256', () => {
    const c = cfg([
      { cells: 64, width: 4, k: 2 },
      { cells: 64, width: 4, k: 2 },
      { cells: 64, width: 8, k: 2 },
    ]);
    expect(c.levels.map((L) => 2 ** L.offset)).toEqual([1, 16, 256]);
    expect(maxCount(c.levels)).toBe(65535n);
    const m = new BitwiseModel(c);
    const key = keyOfIndex(2, 64, 1);
    for (let n = 1; n <= 65535; n++) {
      m.insert(key);
      if (n % 997 === 0 || n < 300 || n > 65500) {
        const r = m.count(key);
        expect(r.count).toBe(BigInt(n));
        expect(r.minima).toEqual([n % 16, (n >> 4) % 16, n >> 8]);
        expect(r.sat).toBe(n === 65535);
      }
    }
    expect(m.insert(key)).toBe(false);
    expect(m.count(key).count).toBe(65535n);
  });

  it('test-and-insert answers as of before its own add', () => {
    const c = cfg([{ cells: 64, width: 4, k: 2 }]);
    const m = new BitwiseModel(c);
    const key = keyOfIndex(3, 64, 1);
    expect(m.testAndInsert(key)).toMatchObject({ hit: false, count: 0n });
    expect(m.testAndInsert(key)).toMatchObject({ hit: true, count: 1n });
    expect(m.count(key).count).toBe(2n);
  });

  it('l = 1 is a counting Bloom filter whose counters stop at 2^w − 1', () => {
    const c = cfg([{ cells: 32, width: 3, k: 1 }]);
    const m = new BitwiseModel(c);
    const key = keyOfIndex(4, 64, 1);
    for (let n = 1; n <= 10; n++) m.insert(key);
    expect(m.count(key)).toMatchObject({ count: 7n, sat: true });
    expect(m.saturatedAdds).toBe(3);
  });
});

describe('bitwise model: the carry, read literally', () => {
  const c = cfg([
    { cells: 64, width: 4, k: 4 },
    { cells: 64, width: 4, k: 4 },
  ]);

  it('on overflow x goes into V_1 and is removed from V_0: its level-0 counters drop by c_0 = 15 to 0', () => {
    const m = new BitwiseModel(c);
    const x = keyOfIndex(5, 64, 1);
    const pos = m.positions(x);
    for (let n = 0; n < 15; n++) m.insert(x);
    expect(pos[0]!.map((p, j) => m.counters[0]![j]![p])).toEqual([15, 15, 15, 15]);
    m.insert(x);
    expect(pos[0]!.map((p, j) => m.counters[0]![j]![p])).toEqual([0, 0, 0, 0]);
    expect(pos[1]!.map((p, j) => m.counters[1]![j]![p])).toEqual([1, 1, 1, 1]);
    expect(m.count(x).count).toBe(16n);
  });

  it('a counter already at its maximum stays there when another item increments it', () => {
    const [y, x] = sharingPair(c, 2);
    const m = new BitwiseModel(c);
    for (let n = 0; n < 15; n++) m.insert(y);
    m.insert(x);
    const px = m.positions(x);
    expect(px[0]!.map((p, j) => m.counters[0]![j]![p])).toEqual([1, 1, 15, 1]);
    expect(m.count(x).count).toBe(1n);
  });

  it("the removal takes another item's share of a shared counter with it: a false negative", () => {
    const [y, x] = sharingPair(c, 1);
    const m = new BitwiseModel(c);
    m.insert(y);
    expect(m.count(y).count).toBe(1n);
    // x reaches 15 at level 0 (its shared counter holds 16 and stays at 15), then carries.
    for (let n = 0; n < 15; n++) m.insert(x);
    expect(m.count(y).count).toBe(1n);
    m.insert(x);
    expect(m.count(x).count).toBe(16n);
    expect(m.count(y)).toMatchObject({ hit: false, count: 0n });
  });
});

describe('bitwise model: words', () => {
  it('word(level, bank, addr) packs lanes low first, as the block RAMs hold them', () => {
    const c = cfg([{ cells: 64, width: 3, k: 2 }]);
    expect(c.levels[0]).toMatchObject({ lanes: 4, wordWidth: 12, depth: 8 });
    const m = new BitwiseModel(c);
    m.counters[0]![1]![8] = 5;
    m.counters[0]![1]![11] = 7;
    expect(m.word(0, 1, 2)).toBe((7n << 9n) | 5n);
  });
});
