/** The compiled software filter equals the reference model: every answer, every flag, every counter. */
import { describe, expect, it } from 'vitest';
import { deriveCounting } from '../../../src/families/counting/config.js';
import { compileCounting, FLAG_OVERFLOW, FLAG_UNDERFLOW } from '../../../src/families/counting/fast.js';
import { CountingModel } from '../../../src/families/counting/model.js';
import { loadPreset } from '../../../src/config/resolve.js';
import { Rng } from '../../../src/util/rng.js';
import { zipfWorkload } from '../../../src/model/workloads.js';

const configs: [string, Record<string, unknown>][] = [
  ...['counting_k4_w4', 'spectral_mi_k4_w4', 'spectral_rm_k4_w4', 'counting_k8_w8_ecp5'].map(
    (n) => [`${n} (preset)`, loadPreset(n) as Record<string, unknown>] as [string, Record<string, unknown>],
  ),
  [
    'MS k=1 w=1, 40-bit keys',
    { name: 'a', filter: 'counting', k: 1, counterBits: 1, cellsPerBank: 64, keyBits: 40, seed: 5 },
  ],
  [
    'MI k=5 w=3',
    { name: 'b', filter: 'spectral', algorithm: 'mi', k: 5, counterBits: 3, cellsPerBank: 64, keyBits: 64, seed: 6 },
  ],
  [
    'RM k=3 w=4, 96-bit keys, small secondary, 20-bit hashes',
    {
      name: 'c',
      filter: 'spectral',
      algorithm: 'rm',
      k: 3,
      counterBits: 4,
      cellsPerBank: 1 << 20,
      secondaryCellsPerBank: 32,
      keyBits: 96,
      seed: 7,
    },
  ],
  [
    'MS w=16 (Uint16 counters)',
    { name: 'd', filter: 'counting', k: 2, counterBits: 16, cellsPerBank: 32, keyBits: 64, seed: 8 },
  ],
  [
    'MS w=32 (Uint32 counters, ECP5)',
    { name: 'e', filter: 'counting', k: 2, counterBits: 32, cellsPerBank: 32, keyBits: 64, seed: 9, target: 'ecp5' },
  ],
];

describe('compiled software counting filter ≡ reference model', () => {
  for (const [what, raw] of configs)
    it(what, () => {
      const c = deriveCounting(raw);
      const fast = compileCounting(c);
      const ref = new CountingModel(c);
      const rng = new Rng(31);
      const kw = Math.ceil(c.keyBits / 32);
      const w = zipfWorkload(c.keyBits, Math.max(64, c.cellsPerBank >> 2), 1.1);
      const words = new Uint32Array(kw);
      let ovf = 0;
      let udf = 0;
      for (let n = 0; n < 30_000; n++) {
        const key = w.nextKey(rng);
        let v = key;
        for (let i = 0; i < kw; i++) {
          words[i] = Number(v & 0xffffffffn);
          v >>= 32n;
        }
        const r = rng.float();
        if (r < 0.3) expect(fast.testAndInsert(words, 0)).toBe(ref.apply('testAndInsert', key).count);
        else if (r < 0.55) expect(fast.query(words, 0)).toBe(ref.query(key));
        else if (r < 0.85 || !c.remove) {
          const f = fast.insert(words, 0);
          expect(f === FLAG_OVERFLOW).toBe(ref.insert(key).overflow);
          if (f) ovf++;
        } else {
          const f = fast.remove!(words, 0);
          expect(f === FLAG_UNDERFLOW).toBe(ref.remove(key).underflow);
          if (f) udf++;
        }
      }
      if (c.counterBits < 8) expect(ovf).toBeGreaterThan(0);
      if (c.remove) expect(udf).toBeGreaterThan(0);
      const all = [...ref.primary, ...ref.secondary];
      let at = 0;
      for (const bank of all) {
        expect(Array.from(fast.counters.subarray(at, at + bank.length))).toEqual(Array.from(bank));
        at += bank.length;
      }
      expect(at).toBe(fast.counters.length);
      expect(fast.remove === undefined).toBe(!c.remove);
    });
});
