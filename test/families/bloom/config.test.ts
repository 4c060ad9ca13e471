/**
 * Set filter configs: the derivations, every invalid parameter refused with one line naming the
 * field, and the edges (k = 1, the smallest and the largest sizes) built and equal to the model.
 */
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/resolve.js';
import { deriveBloom, MAX_BITS, MAX_K } from '../../../src/families/bloom/config.js';
import { buildBloom } from '../../../src/families/bloom/rtl.js';
import { ConfigError } from '../../../src/util/errors.js';
import { driveConfig } from '../../helpers/families.js';

const basic = { name: 'f', filter: 'basic', k: 4, bits: 16384, keyBits: 64, seed: 1 };
const part = { name: 'f', filter: 'partitioned', k: 4, sliceBits: 4096, keyBits: 64, seed: 1 };
const blocked = { name: 'f', filter: 'blocked', blockBits: 512, bitsPerBlock: 4, bits: 16384, keyBits: 64, seed: 1 };

describe('derivation', () => {
  it('basic: one column of m bits, II = k, n = ⌊m ln 2/k⌋', () => {
    const c = deriveBloom(basic);
    expect(c).toMatchObject({ columns: 1, columnBits: 16384, wordBits: 16, columnDepth: 1024, initiationInterval: 4 });
    expect(c.items).toBe(Math.floor((16384 * Math.LN2) / 4));
  });

  it('partitioned: k columns of sliceBits, or of bits/k; n = ⌊(m/k) ln 2⌋', () => {
    const c = deriveBloom(part);
    expect(c).toMatchObject({ bits: 16384, columns: 4, columnBits: 4096, columnDepth: 256, initiationInterval: 1 });
    expect(c.items).toBe(Math.floor(4096 * Math.LN2));
    const d = deriveBloom({ ...part, sliceBits: undefined, bits: 7 * 1024, k: 7 });
    expect(d).toMatchObject({ columns: 7, columnBits: 1024 });
  });

  it('blocked: b columns of m/b bits; n = ⌊(m/B)·λ⌋, λ the half-fill load', () => {
    const c = deriveBloom(blocked);
    expect(c).toMatchObject({ k: 4, blockBits: 512, columns: 4, columnBits: 4096, initiationInterval: 1 });
    expect(c.items).toBe(Math.floor(32 * (Math.LN2 / -Math.log1p(-4 / 512))));
  });

  it('items sets the capacity; narrow columns get narrow words', () => {
    expect(deriveBloom({ ...basic, items: 1000 }).items).toBe(1000);
    expect(deriveBloom({ ...part, sliceBits: 8 }).wordBits).toBe(4);
    expect(deriveBloom({ ...basic, wordBits: 64 }).columnDepth).toBe(256);
  });
});

const bad: [string, Record<string, unknown>, RegExp][] = [
  ['k = 0', { ...basic, k: 0 }, /field 'k'/],
  ['k above the maximum', { ...basic, k: MAX_K + 1 }, /field 'k'/],
  ['bits = 0', { ...basic, bits: 0 }, /field 'bits'/],
  ['key width 0', { ...basic, keyBits: 0 }, /field 'keyBits'/],
  ['tag width 0', { ...basic, tagBits: 0 }, /field 'tagBits'/],
  ['word width 0', { ...basic, wordBits: 0 }, /field 'wordBits'/],
  ['word width not a power of two', { ...basic, wordBits: 12 }, /field 'wordBits': must be a power of two/],
  ['sliceBits 0', { ...part, sliceBits: 0 }, /field 'sliceBits'/],
  ['blockBits 0', { ...blocked, blockBits: 0 }, /field 'blockBits'/],
  ['bitsPerBlock 0', { ...blocked, bitsPerBlock: 0 }, /field 'bitsPerBlock'/],
  ['basic m not a power of two', { ...basic, bits: 10_000 }, /field 'bits': must be a power of two/],
  ['blocked m not a power of two', { ...blocked, bits: 3 * 8192 }, /field 'bits': must be a power of two/],
  ['slice not a power of two', { ...part, sliceBits: 3000 }, /field 'sliceBits': must be a power of two/],
  [
    'partitioned m not k × a power of two',
    { ...part, sliceBits: undefined, bits: 10_000 },
    /field 'bits': must be k times/,
  ],
  ['k larger than the slices', { ...part, sliceBits: undefined, bits: 8, k: 5 }, /field 'k': too large for bits = 8/],
  ['k larger than the bit vector', { ...basic, bits: 2, k: 3 }, /field 'k': must not exceed bits \(2\)/],
  ['b > B', { ...blocked, blockBits: 4, bitsPerBlock: 8 }, /field 'bitsPerBlock': must not exceed blockBits \(4\)/],
  ['b = B', { ...blocked, blockBits: 8, bitsPerBlock: 8 }, /field 'bitsPerBlock': must be smaller than blockBits/],
  ['one block', { ...blocked, bits: 512 }, /field 'bits': must hold at least two blocks of 512 bits/],
  ['blocked without B', { ...blocked, blockBits: undefined }, /field 'blockBits': required for filter blocked/],
  ['k on a blocked filter', { ...blocked, k: 4 }, /field 'k': not for filter blocked: give bitsPerBlock/],
  ['sliceBits on basic', { ...basic, sliceBits: 4096 }, /field 'sliceBits': only for filter partitioned/],
  ['blockBits on partitioned', { ...part, blockBits: 64 }, /field 'blockBits': only for filter blocked/],
  ['sliceBits and bits', { ...part, bits: 16384 }, /field 'bits': give sliceBits or bits, not both/],
  ['no size', { ...part, sliceBits: undefined }, /field 'sliceBits': give sliceBits/],
  ['no k', { ...basic, k: undefined }, /field 'k': give k and the size, or items and fp/],
  ['m above the maximum', { ...basic, bits: 2 * MAX_BITS }, /field 'bits'/],
  ['slices above the maximum', { ...part, k: 8, sliceBits: MAX_BITS }, /field 'sliceBits': k · sliceBits/],
  ['word wider than half a column', { ...part, sliceBits: 64, wordBits: 64 }, /field 'wordBits': must be at most 32/],
  [
    'fp with sizes',
    { ...basic, fp: 0.01 },
    /field 'fp': with items and fp the planner chooses every size; leave out k/,
  ],
  [
    'fp without items',
    { name: 'f', filter: 'basic', fp: 0.01, keyBits: 64, seed: 1 },
    /field 'items': required with fp/,
  ],
  ['fp out of range', { name: 'f', filter: 'basic', fp: 1, items: 10, keyBits: 64, seed: 1 }, /field 'fp'/],
  ['items 0', { ...basic, items: 0 }, /field 'items'/],
  ['unknown field', { ...basic, colour: 'red' }, /unknown field 'colour'/],
  ['bad name', { ...basic, name: '9lives' }, /field 'name'/],
  ['unknown filter', { ...basic, filter: 'cuckoo' }, /field 'filter'/],
];

describe('invalid parameters: one line naming the field', () => {
  for (const [what, cfg, msg] of bad)
    it(what, () => {
      let err: unknown;
      try {
        resolveConfig(cfg, 'cfg.json');
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(/^cfg\.json: /);
      expect((err as Error).message).toMatch(msg);
      expect((err as Error).message).not.toContain('\n');
    });
});

describe('edges build and equal the model', () => {
  const edges: [string, Record<string, unknown>][] = [
    ['basic k = 1 (II = 1)', { ...basic, k: 1, bits: 1024 }],
    ['basic k = 2, the smallest vector (2 bits, one-bit words)', { ...basic, k: 2, bits: 2 }],
    ['basic k = 64, m = 64 (II = 64)', { ...basic, k: MAX_K, bits: 64 }],
    ['partitioned k = 1', { ...part, k: 1, sliceBits: 1024 }],
    ['partitioned with slices of 2 bits', { ...part, k: 3, sliceBits: 2 }],
    ['partitioned k = 64', { ...part, k: MAX_K, sliceBits: 64 }],
    ['blocked, the smallest (B = 2, b = 1, two blocks)', { ...blocked, blockBits: 2, bitsPerBlock: 1, bits: 4 }],
    [
      'blocked with a hash over 32 bits (B = 4096, b = 32)',
      { ...blocked, blockBits: 4096, bitsPerBlock: 32, bits: 1 << 14 },
    ],
    ['a 512-bit key and a 1-bit tag', { ...part, keyBits: 512, tagBits: 1 }],
  ];
  for (const [what, cfg] of edges)
    it(what, () => {
      const c = deriveBloom(cfg);
      const r = driveConfig(c, {
        ops: 600,
        seed: 3,
        backpressure: 0.2,
        mix: { query: 3, insert: 3, testAndInsert: 3, clear: 0.05 },
      });
      expect(r.finished, r.stopReason ?? '').toBe(true);
      expect(r.mismatches).toEqual([]);
      expect(r.model.compareMemories((n, a) => r.sim.readMemory(n, a)).mismatches).toEqual([]);
    });

  it('the largest sizes derive and build (m = 2^26 bits; k = 64 slices)', () => {
    const big = deriveBloom({ ...basic, k: 8, bits: MAX_BITS });
    expect(big.columnDepth).toBe(MAX_BITS / 16);
    expect(buildBloom(big).cells.some((x) => x.kind === 'memory')).toBe(true);
    const wide = deriveBloom({ ...part, k: MAX_K, sliceBits: MAX_BITS / MAX_K });
    expect(wide.bits).toBe(MAX_BITS);
    expect(buildBloom(wide).cells.filter((x) => x.kind === 'memory')).toHaveLength(MAX_K);
    const blk = deriveBloom({ ...blocked, blockBits: 4096, bitsPerBlock: 64, bits: MAX_BITS });
    expect(buildBloom(blk).cells.filter((x) => x.kind === 'memory')).toHaveLength(64);
  });
});
