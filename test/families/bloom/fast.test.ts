/** The compiled software set filter equals the reference model: every answer and every bit. */
import { describe, expect, it } from 'vitest';
import { loadPreset } from '../../../src/config/resolve.js';
import { deriveBloom } from '../../../src/families/bloom/config.js';
import { compileBloom } from '../../../src/families/bloom/fast.js';
import { BloomModel } from '../../../src/families/bloom/model.js';
import { Rng } from '../../../src/util/rng.js';

const configs: [string, Record<string, unknown>][] = [
  ...['bloom_basic_k4_16k', 'bloom_partitioned_k4_4k', 'bloom_blocked_b512_4_16k'].map(
    (n) => [`${n} (preset)`, loadPreset(n) as Record<string, unknown>] as [string, Record<string, unknown>],
  ),
  ['basic k = 1, 96-bit keys', { name: 'a', filter: 'basic', k: 1, bits: 256, keyBits: 96, seed: 9 }],
  ['basic k = 13, 20-bit hashes', { name: 'a', filter: 'basic', k: 13, bits: 1 << 20, keyBits: 64, seed: 2 }],
  [
    'partitioned k = 7, 8-bit keys (hash units packed two to a word)',
    { name: 'p', filter: 'partitioned', k: 7, sliceBits: 256, keyBits: 8, seed: 4 },
  ],
  [
    'partitioned k = 20, 512-bit keys',
    { name: 'p', filter: 'partitioned', k: 20, sliceBits: 2048, keyBits: 512, seed: 5 },
  ],
  [
    'blocked B = 64, b = 2',
    { name: 'b', filter: 'blocked', blockBits: 64, bitsPerBlock: 2, bits: 2048, keyBits: 64, seed: 6 },
  ],
  [
    'blocked B = 4096, b = 32 (a 357-bit hash: 12 H3 units)',
    { name: 'b', filter: 'blocked', blockBits: 4096, bitsPerBlock: 32, bits: 1 << 16, keyBits: 33, seed: 7 },
  ],
];

describe('compiled software filter ≡ reference model', () => {
  for (const [what, raw] of configs)
    it(what, () => {
      const c = deriveBloom(raw);
      const fast = compileBloom(c);
      const ref = new BloomModel(c);
      const rng = new Rng(31);
      const kw = Math.ceil(c.keyBits / 32);
      const keys = new Uint32Array(kw);
      const universe = 3 * c.items;
      let hits = 0;
      for (let n = 0; n < 6 * c.items + 2000; n++) {
        const id = Math.floor(rng.float() * universe);
        for (let i = 0; i < kw; i++) keys[i] = Math.imul(id + 1, 0x9e3779b1 + 2 * i) ^ (i * 0x5bd1e995);
        if (c.keyBits % 32) keys[kw - 1] = keys[kw - 1]! & ((1 << (c.keyBits % 32)) - 1);
        const op = rng.float();
        if (op < 0.4) {
          const a = fast.testAndInsert(keys, 0);
          expect(a).toBe(ref.testAndInsertWords(keys));
          if (a) hits++;
        } else if (op < 0.7) expect(fast.query(keys, 0)).toBe(ref.queryWords(keys));
        else {
          fast.insert(keys, 0);
          ref.insertWords(keys);
        }
      }
      expect(hits).toBeGreaterThan(0);
      expect(Array.from(fast.bits)).toEqual(Array.from(ref.bits));
      fast.clear();
      expect(fast.bits.every((w) => w === 0)).toBe(true);
    });
});
