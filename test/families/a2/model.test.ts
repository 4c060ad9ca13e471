/**
 * The A² reference model against its rules (src/families/a2/model.ts: Yoon 2010 / the libBf
 * manual's "A²", our reading of the order of operations), the window it promises on streams with
 * duplicates, and the compiled software filter against the model bit for bit.
 */
import { describe, expect, it } from 'vitest';
import { A2Model, roles } from '../../../src/families/a2/model.js';
import { compileA2 } from '../../../src/families/a2/fast.js';
import { keyWords } from '../../../src/families/streamKit.js';
import { deriveA2 } from '../../../src/families/a2/config.js';
import { ExactWindow } from '../../../src/model/window.js';
import { Rng } from '../../../src/util/rng.js';

const params = (k: number, kappa: number, bankBits: number) => ({ k, kappa, bankBits, keyBits: 32, seed: 5 });

describe('A² model', () => {
  it('swaps right after the κ-th real insert; the κ-th key stays in the (new) standby half only', () => {
    const m = new A2Model(params(3, 4, 1024));
    const keys = [11n, 22n, 33n, 44n, 55n, 66n, 77n, 88n, 99n];
    for (let i = 0; i < 3; i++) m.insert(keys[i]!);
    expect([m.act, m.count, m.swaps]).toEqual([0, 3, 0]);
    m.insert(keys[3]!); // the 4th real insert completes the half
    expect([m.act, m.count, m.swaps]).toEqual([1, 0, 1]);
    expect(m.ones(0)).toBeGreaterThan(0); // set 0: the standby now
    expect(m.ones(1)).toBe(0); // the new active set is empty
    for (const k of keys.slice(0, 4)) expect(m.query(k)).toBe(true);
    for (let i = 4; i < 8; i++) m.insert(keys[i]!); // fills the second half, second swap flushes set 0
    expect([m.act, m.swaps]).toEqual([2, 2]);
    expect(m.ones(0)).toBe(0);
    expect(roles(m.act)).toEqual({ active: 2, standby: 1, flushed: 0 });
    for (const k of keys.slice(4, 8)) expect(m.query(k)).toBe(true);
  });

  it('a key already in the active half is not inserted again and does not count; one only in the standby half is', () => {
    const m = new A2Model(params(3, 4, 1024));
    m.insert(1n);
    m.insert(1n);
    m.insert(1n);
    expect(m.count).toBe(1);
    for (const k of [2n, 3n, 4n]) m.insert(k); // swap: 1 is in the standby half now
    expect(m.swaps).toBe(1);
    m.insert(1n);
    expect(m.count).toBe(1); // a real insert into the new active half (a refresh)
    expect(m.testAndInsert(1n)).toBe(true);
    expect(m.count).toBe(1);
  });

  it('clear empties both halves and restarts the roles', () => {
    const m = new A2Model(params(2, 3, 256));
    for (let i = 1n; i < 10n; i++) m.insert(i);
    m.clear();
    expect([m.act, m.count]).toEqual([0, 0]);
    for (let s = 0; s < 3; s++) expect(m.ones(s)).toBe(0);
    expect(m.query(1n)).toBe(false);
  });

  it('edges: κ = 1 swaps on every real insert (the last key still found), k = 1 works', () => {
    const m = new A2Model(params(1, 1, 64));
    for (let i = 1n; i <= 50n; i++) {
      m.insert(i * 7919n);
      expect(m.query(i * 7919n)).toBe(true);
      expect(m.count).toBe(0);
    }
    expect(m.swaps).toBeGreaterThan(10);
  });

  it('window κ: no false negative for any key of the last κ stream inserts, duplicates included', () => {
    for (const [k, kappa, bankBits, universe] of [
      [3, 60, 128, 150],
      [1, 13, 32, 40],
      [4, 200, 512, 1000],
    ] as const) {
      const m = new A2Model(params(k, kappa, bankBits));
      const exact = new ExactWindow(kappa);
      const rng = new Rng(k * 1000 + kappa);
      let checked = 0;
      for (let i = 0; i < 30 * kappa; i++) {
        const key = BigInt(Math.floor(rng.float() * universe)) * 2654435761n;
        const hit = m.testAndInsert(key);
        if (exact.has(key)) {
          checked++;
          expect(hit).toBe(true);
        }
        exact.insert(key);
      }
      expect(checked).toBeGreaterThan(kappa);
      expect(m.swaps).toBeGreaterThan(5);
    }
  });

  it('with distinct keys, a key is present up to 2κ−2 real inserts after it and never from 2κ−1 on', () => {
    const kappa = 40;
    const m = new A2Model(params(3, kappa, 4096));
    const inserted: bigint[] = [];
    for (let i = 0; i < 10 * kappa; i++) {
      const key = BigInt(i + 1) * 0x9e3779b1n;
      const before = m.realInserts;
      m.insert(key);
      if (m.realInserts !== before) inserted.push(key);
    }
    // The keys just inserted: the first of the current active half (j = 1 ... ) back to 2κ−1.
    // `present` = all bits set in a live set; with 4096-bit banks and 3 hashes, false positives are ~1e-6.
    const presentAt = (age: number) => m.query(inserted[inserted.length - 1 - age]!);
    for (let age = 0; age < kappa; age++) expect(presentAt(age)).toBe(true);
    for (let age = 2 * kappa - 1; age < 3 * kappa; age++) expect(presentAt(age)).toBe(false);
    // The oldest present key: the first of the standby half, 2κ − 1 − j ... = κ − 1 + count.
    expect(presentAt(kappa - 1 + m.count)).toBe(true);
    expect(presentAt(kappa + m.count)).toBe(false);
  });
});

describe('compiled software A² ≡ model', () => {
  for (const [k, kappa, bankBits, keyBits] of [
    [3, 20, 64, 32],
    [1, 2, 64, 8],
    [8, 500, 2048, 64],
    [5, 100, 1 << 17, 100],
  ] as const) {
    it(`k=${k} κ=${kappa} bankBits=${bankBits} keyBits=${keyBits}: answers, bits and roles equal after a mixed stream`, () => {
      const p = { k, kappa, bankBits, keyBits, seed: 9 };
      const m = new A2Model(p);
      const f = compileA2(p);
      const rng = new Rng(k + kappa);
      const mask = (1n << BigInt(keyBits)) - 1n;
      const keys = Array.from(
        { length: 6000 },
        () => (rng.next64() | (rng.next64() << 64n)) & mask & ((1n << 20n) - 1n),
      );
      const words = keyWords(keys, keyBits);
      const kw = Math.ceil(keyBits / 32);
      keys.forEach((key, i) => {
        const op = i % 3;
        if (op === 0) expect(f.query(words, i * kw)).toBe(m.query(key));
        else if (op === 1) {
          f.insert(words, i * kw);
          m.insert(key);
        } else expect(f.testAndInsert(words, i * kw)).toBe(m.testAndInsert(key));
      });
      expect([f.state[0], f.state[1], f.state[2]]).toEqual([m.act, m.count, m.swaps]);
      expect(m.swaps).toBeGreaterThan(0);
      for (let s = 0; s < 3; s++)
        for (let u = 0; u < k; u++)
          expect(Array.from(f.bits.subarray((s * k + u) * f.bankWords, (s * k + u + 1) * f.bankWords))).toEqual(
            Array.from(m.bits[s]![u]!),
          );
    });
  }

  it('the software filter of every preset is the compiled one', async () => {
    const { a2Software } = await import('../../../src/families/a2/stream.js');
    const c = deriveA2({ name: 'x', filter: 'a2', k: 3, bankBits: 512, keyBits: 64, seed: 1 });
    expect(a2Software(c).engine).toBe('compiled');
  });
});
