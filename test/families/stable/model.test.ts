import { describe, expect, it } from 'vitest';
import { deriveStable } from '../../../src/families/stable/config.js';
import { compileStable } from '../../../src/families/stable/fast.js';
import {
  decrementMask,
  decrementsPerBank,
  laneOffset,
  StableModel,
  stableLayout,
  xorshift32,
} from '../../../src/families/stable/model.js';
import { keyWords } from '../../../src/families/streamKit.js';
import type { StableDerived } from '../../../src/families/stable/types.js';
import { keyOfIndex } from '../../../src/model/workloads.js';
import { Rng } from '../../../src/util/rng.js';
import { presetConfig, presetsOf } from '../../helpers/families.js';

const cfg = (o: Record<string, unknown>): StableDerived =>
  deriveStable({ name: 't', filter: 'stable', keyBits: 64, seed: 7, ...o });

describe('Stable Bloom filter model (word-local variant)', () => {
  it("xorshift32 is Marsaglia's (13, 17, 5) generator: 1 -> 270369 and a full-period-looking orbit", () => {
    expect(xorshift32(1)).toBe(270369);
    let x = 1;
    const seen = new Set<number>();
    for (let i = 0; i < 10000; i++) {
      x = xorshift32(x);
      expect(x).not.toBe(0);
      seen.add(x);
    }
    expect(seen.size).toBe(10000);
  });

  it('P is spread over the banks, the first P mod k banks taking one more', () => {
    expect(decrementsPerBank(7, 3)).toEqual([3, 2, 2]);
    expect(decrementsPerBank(2, 4)).toEqual([1, 1, 0, 0]);
    expect(decrementsPerBank(0, 2)).toEqual([0, 0]);
    expect(decrementMask(6, 3, 8)).toBe(0b11000001);
    expect(decrementMask(0, 8, 8)).toBe(0xff);
  });

  it('an insert decrements P_i cyclically adjacent cells of its word from r_i (saturating), then sets its cell to Max', () => {
    const c = cfg({ k: 2, d: 2, cells: 16, cellsPerWord: 8, P: 7 }); // P_0 = 4, P_1 = 3
    const m = new StableModel(c);
    const L = stableLayout(c);
    const rng = new Rng(3);
    for (let t = 0; t < 200; t++) {
      // Random cell values, some at 0 (saturation), then one insert.
      for (const bank of m.cells) for (let j = 0; j < bank.length; j++) bank[j] = Math.floor(rng.float() * 4);
      const before = m.cells.map((b) => Uint16Array.from(b));
      const r = [0, 1].map((i) => laneOffset(L, m.lanes, i));
      const key = keyOfIndex(t, 64, 1);
      const idx = [0, 1].map((i) => m.index(key, i));
      m.insert(key);
      for (let i = 0; i < 2; i++) {
        const mask = decrementMask(r[i]!, L.perBank[i]!, 8);
        const base = idx[i]! & ~7;
        for (let j = 0; j < 16; j++) {
          let want = before[i]![j]!;
          if (j === idx[i]) want = 3;
          else if (j >= base && j < base + 8 && mask & (1 << (j - base))) want = Math.max(0, want - 1);
          expect(m.cells[i]![j], `insert ${t} bank ${i} cell ${j}`).toBe(want);
        }
      }
    }
  });

  it('the offsets r_i are uniform over the word (the analysis assumes it)', () => {
    const c = cfg({ k: 3, d: 2, cells: 64, cellsPerWord: 8, P: 3 });
    const m = new StableModel(c);
    const L = stableLayout(c);
    const counts = Array.from({ length: 3 }, () => new Array<number>(8).fill(0));
    const N = 16000;
    for (let t = 0; t < N; t++) {
      for (let i = 0; i < 3; i++) counts[i]![laneOffset(L, m.lanes, i)]!++;
      m.insert(keyOfIndex(t, 64, 2));
    }
    // Chi-square with 7 degrees of freedom: 99.9% quantile 24.3.
    for (const row of counts) {
      const chi = row.reduce((s, x) => s + (x - N / 8) ** 2 / (N / 8), 0);
      expect(chi).toBeLessThan(24.3);
    }
  });

  it('query answers all k cells non-zero; test-and-insert answers before its own insert; clear restores the generator', () => {
    const c = cfg({ k: 3, d: 2, cells: 64, P: 3 });
    const m = new StableModel(c);
    const key = keyOfIndex(1, 64, 3);
    expect(m.query(key)).toBe(false);
    expect(m.testAndInsert(key)).toBe(false);
    expect(m.query(key)).toBe(true);
    expect(m.testAndInsert(key)).toBe(true);
    const fresh = new StableModel(c);
    for (let t = 0; t < 300; t++) m.insert(keyOfIndex(t, 64, 4));
    m.clear();
    expect(m.cells.every((b) => b.every((x) => x === 0))).toBe(true);
    for (let t = 0; t < 300; t++) {
      m.insert(keyOfIndex(t, 64, 5));
      fresh.insert(keyOfIndex(t, 64, 5));
    }
    expect(m.cells).toEqual(fresh.cells);
  });

  it('P = 0 never forgets (every inserted key is found after any number of inserts)', () => {
    const c = cfg({ k: 2, d: 1, cells: 1024, P: 0 });
    const m = new StableModel(c);
    const keys = Array.from({ length: 700 }, (_, t) => keyOfIndex(t, 64, 6));
    for (const k of keys) m.insert(k);
    expect(keys.every((k) => m.query(k))).toBe(true);
  });

  it('P > 0 forgets: old keys are evicted (false negatives by design)', () => {
    const c = presetConfig<StableDerived>('stable_d2_k3');
    const m = new StableModel(c);
    const keys = Array.from({ length: 5000 }, (_, t) => keyOfIndex(t, 64, 7));
    for (const k of keys) m.insert(k);
    const found = keys.slice(0, 1000).filter((k) => m.query(k)).length;
    expect(found).toBeLessThan(200); // about the stable fp (4.9%) of them
  });
});

describe('the compiled software filter equals the model bit for bit', () => {
  const configs: [string, StableDerived][] = [
    ...presetsOf('stable').map((n) => [n, presetConfig<StableDerived>(n)] as [string, StableDerived]),
    ['k=1 d=1 P=1', cfg({ k: 1, d: 1, cells: 4, P: 1 })],
    ['P = k·C', cfg({ k: 2, d: 2, cells: 32, cellsPerWord: 4, P: 8 })],
    ['P = 0, d = 16, one cell per word', cfg({ k: 2, d: 16, cells: 8, P: 0 })],
    ['k=9 (two generator lanes), 33-bit keys', cfg({ k: 9, d: 2, cells: 256, P: 13, keyBits: 33 })],
    ['d = 8, 32 cells per word', cfg({ k: 2, d: 8, cells: 64, cellsPerWord: 8, P: 9 })],
  ];
  for (const [name, c] of configs) {
    it(name, () => {
      const m = new StableModel(c);
      const f = compileStable(c);
      const rng = new Rng(11);
      const universe = 3000;
      const keys = Array.from({ length: universe }, (_, i) => keyOfIndex(i, c.keyBits, 8));
      const words = keyWords(keys, c.keyBits);
      const kw = Math.ceil(c.keyBits / 32);
      for (let t = 0; t < 20000; t++) {
        const i = Math.floor(rng.float() * universe);
        const op = rng.float();
        if (op < 0.3) expect(f.query(words, i * kw)).toBe(m.query(keys[i]!));
        else if (op < 0.6) expect(f.testAndInsert(words, i * kw)).toBe(m.testAndInsert(keys[i]!));
        else if (op < 0.9999) {
          f.insert(words, i * kw);
          m.insert(keys[i]!);
        } else {
          f.clear();
          m.clear();
        }
      }
      for (let b = 0; b < c.k; b++) expect(f.cells.subarray(b * c.cells, (b + 1) * c.cells)).toEqual(m.cells[b]);
      expect(f.lanes).toEqual(m.lanes);
    });
  }
});
