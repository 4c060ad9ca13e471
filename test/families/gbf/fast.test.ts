/** The compiled software GBF equals the reference model bit for bit: answers, counts and cells. */
import { describe, expect, it } from 'vitest';
import { compileGbf } from '../../../src/families/gbf/fast.js';
import { GbfModel } from '../../../src/families/gbf/model.js';
import type { GbfParams } from '../../../src/families/gbf/types.js';
import { Rng } from '../../../src/util/rng.js';

describe('compiled software GBF', () => {
  for (const p of [
    { k0: 4, k1: 4, m: 8 * 4096, keyBits: 64 },
    { k0: 1, k1: 2, m: 3 * 2, keyBits: 8 },
    { k0: 7, k1: 13, m: 20 * 128, keyBits: 100 },
    { k0: 2, k1: 2, m: 4 * 2 ** 17, keyBits: 33 },
  ])
    it(`k0=${p.k0} k1=${p.k1} ${p.m / (p.k0 + p.k1)} cells per bank, ${p.keyBits}-bit keys`, () => {
      const params: GbfParams = { ...p, layout: 'partitioned', seed: 11 };
      const model = new GbfModel(params);
      const fast = compileGbf(params);
      const rng = new Rng(3);
      const kw = Math.ceil(p.keyBits / 32);
      const words = new Uint32Array(kw);
      const pool = Array.from({ length: 300 }, () => rng.bits(p.keyBits));
      for (let i = 0; i < 6000; i++) {
        const key = pool[Math.floor(rng.float() * pool.length)]!;
        let v = key;
        for (let j = 0; j < kw; j++) {
          words[j] = Number(v & 0xffffffffn);
          v >>= 32n;
        }
        const op = i % 3;
        if (op === 1) {
          model.insert(key);
          fast.insert(words, 0);
          continue;
        }
        const q = op === 0 ? model.query(key) : model.testAndInsert(key);
        const hit = op === 0 ? fast.query(words, 0) : fast.testAndInsert(words, 0);
        expect(hit).toBe(q.hit);
        expect([...fast.counts]).toEqual([q.c0, q.c1]);
      }
      const K = p.k0 + p.k1;
      const per = p.m / K;
      const cells = Uint8Array.from({ length: p.m }, (_, x) => {
        const j = Math.floor(x / per);
        const i = x % per;
        return (fast.bits[j * fast.colWords + (i >>> 5)]! >>> (i & 31)) & 1;
      });
      expect(Buffer.from(cells).equals(Buffer.from(model.cells))).toBe(true);
    });
});
