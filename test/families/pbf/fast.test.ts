/** The compiled software filter equals the reference model bit for bit, answers included. */
import { describe, expect, it } from 'vitest';
import { presetFilters } from '../../../src/config/resolve.js';
import { compilePbf } from '../../../src/families/pbf/fast.js';
import { keyBytes } from '../../../src/families/pbf/model.js';
import { newModel } from '../../../src/families/pbf/stream.js';
import type { PbfDerived } from '../../../src/families/pbf/types.js';
import { keyWords } from '../../../src/families/streamKit.js';
import { Rng } from '../../../src/util/rng.js';

describe('compiled pbf filter', () => {
  for (const f of presetFilters().filter((x) => x.family.id === 'pbf'))
    it(`${f.name}: bits and answers equal the model's`, () => {
      const c = f.config as PbfDerived;
      const fast = compilePbf(c);
      const model = newModel(c);
      const rng = new Rng(12);
      const keys = Array.from({ length: 300 }, () => BigInt(Math.floor(rng.float() * 2 ** 31)));
      const words = keyWords(keys, c.keyBits);
      const kw = Math.ceil(c.keyBits / 32);
      let t = 0;
      let hits = 0;
      for (let i = 0; i < 3000; i++) {
        const k = Math.floor(rng.float() * keys.length);
        if (rng.float() < 0.5) {
          t = Math.min(c.horizon - 1, t + (rng.float() < 0.3 ? 1 : 0));
          fast.insert(words, k * kw, t);
          model.insert(keyBytes(keys[k]!, c.keyBits), t);
        } else {
          const e = Math.floor(rng.float() * c.horizon);
          const s = Math.max(0, e - Math.floor(rng.float() * 200));
          const a = fast.query(words, k * kw, s, e);
          expect(a).toBe(model.query(keys[k]!, s, e));
          if (a) hits++;
        }
      }
      expect(hits).toBeGreaterThan(10);
      model.levels.forEach((lv, i) => {
        for (let j = 0; j < lv.spec.k; j++) {
          const at = fast.offset(i, j);
          expect(fast.bits.subarray(at, at + lv.spec.sliceBits)).toEqual(
            lv.bits.subarray(j * lv.spec.sliceBits, (j + 1) * lv.spec.sliceBits),
          );
        }
      });
    });
});
