/** The compiled software APBF equals the reference model: every answer and every bit. */
import { describe, expect, it } from 'vitest';
import { deriveApbf } from '../../../src/families/apbf/config.js';
import { ApbfModel } from '../../../src/families/apbf/model.js';
import { compileApbf } from '../../../src/families/apbf/fast.js';
import { loadPreset } from '../../../src/config/resolve.js';
import { Rng } from '../../../src/util/rng.js';

const configs: [string, Record<string, unknown>][] = [
  ['apbf_k4_l3 (preset)', loadPreset('apbf_k4_l3') as Record<string, unknown>],
  ['apbf k=10 l=7 (preset)', loadPreset('apbf_k10_l7') as Record<string, unknown>],
  [
    'apbbf (2, 5, 512, 4) (preset, 33-bit bank hash: two H3 units)',
    loadPreset('apbbf_k2_l5_b512_4') as Record<string, unknown>,
  ],
  ['apbbf (3, 8, 512, 8) (preset, 54-bit bank hash)', loadPreset('apbbf_k3_l8_b512_8') as Record<string, unknown>],
  [
    'apbf k=3 l=2, 96-bit keys, small slices',
    { name: 'a', filter: 'apbf', k: 3, l: 2, sliceBits: 256, keyBits: 96, seed: 9 },
  ],
  [
    'apbbf k=2 l=4 B=64 b=2',
    { name: 'b', filter: 'apbbf', k: 2, l: 4, sliceBits: 2048, blockBits: 64, bitsPerBlock: 2, keyBits: 64, seed: 4 },
  ],
];

describe('compiled software APBF ≡ reference model', () => {
  for (const [what, raw] of configs) {
    it(what, () => {
      const c = deriveApbf(raw);
      const fast = compileApbf(c);
      expect(fast).not.toBeNull();
      const ref = new ApbfModel(c);
      const rng = new Rng(31);
      const kw = Math.ceil(c.keyBits / 32);
      const keys = new Uint32Array(kw);
      const universe = 3 * c.window;
      let hits = 0;
      for (let n = 0; n < 12 * c.generation * (c.k + c.l); n++) {
        const id = Math.floor(rng.float() * universe);
        for (let i = 0; i < kw; i++) keys[i] = Math.imul(id + 1, 0x9e3779b1 + 2 * i) ^ (i * 0x5bd1e995);
        const op = rng.float();
        if (op < 0.4) {
          const a = fast!.testAndInsert(keys, 0);
          expect(a).toBe(ref.testAndInsertWords(keys));
          if (a) hits++;
        } else if (op < 0.7) expect(fast!.query(keys, 0)).toBe(ref.queryWords(keys));
        else {
          fast!.insert(keys, 0);
          ref.insertWords(keys);
        }
      }
      expect(hits).toBeGreaterThan(0);
      expect(ref.shifts).toBeGreaterThan(10);
      for (let bank = 0; bank < ref.columns.length; bank++)
        ref.columns[bank]!.forEach((col, j) => {
          const at = (bank * c.bitsPerBlock + j) * col.length;
          expect(Array.from(fast!.bits.subarray(at, at + col.length))).toEqual(Array.from(col));
        });
    });
  }
});
