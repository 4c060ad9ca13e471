import { describe, expect, it } from 'vitest';
import { deriveApbf } from '../../../src/families/apbf/config.js';
import { halfFillLoad } from '../../../src/families/apbf/analysis.js';
import { ConfigError } from '../../../src/util/errors.js';
import { CLEAR_DELAY } from '../../../src/stages/clear.js';

const base = { name: 'f', filter: 'apbf', k: 4, l: 3, sliceBits: 4096, keyBits: 64, seed: 1 };

describe('APBF/APBBF config derivation', () => {
  it('APBF with only sliceBits: g = floor(m ln2 / k), w = l g, s = k g (§5.2)', () => {
    const c = deriveApbf(base);
    expect(c.generation).toBe(Math.floor((4096 * Math.LN2) / 4));
    expect(c.window).toBe(3 * c.generation);
    expect(c.slack).toBe(4 * c.generation);
  });

  it('APBF with only generation: m = ceil(g k / ln2) rounded up to a power of two', () => {
    const c = deriveApbf({ ...base, sliceBits: undefined, generation: 333 });
    expect(c.segmentBits).toBe(2048); // ceil(333*4/ln2) = 1922
    expect(c.generation).toBe(333);
  });

  it('APBBF default generation leaves each part half full (Table 3 capacity)', () => {
    const c = deriveApbf({ ...base, filter: 'apbbf', k: 2, l: 5, blockBits: 512, bitsPerBlock: 4, sliceBits: 16384 });
    expect(c.generation).toBe(Math.floor((32 * halfFillLoad(512, 4)) / 2));
    // Table 3 (Shtul et al.): capacity relative to APBF (k·b, l·b) is 0.968 for B=64,b=4, 0.996 for 512/4,
    // 0.936 for 64/8 and 0.992 for 512/8.
    const cap = (B: number, b: number) => halfFillLoad(B, b) / ((B / b) * Math.LN2);
    expect(cap(64, 4).toFixed(3)).toBe('0.968');
    expect(cap(512, 4).toFixed(3)).toBe('0.996');
    expect(cap(64, 8).toFixed(3)).toBe('0.936');
    expect(cap(512, 8).toFixed(3)).toBe('0.992');
  });

  it('chooses enough spare banks to clear a retired bank within the bound', () => {
    const c = deriveApbf({ ...base, k: 14, l: 11 });
    expect(c.columnDepth + CLEAR_DELAY + 1).toBeGreaterThan(c.generation);
    expect(c.spares).toBe(2);
    expect(c.columnDepth + CLEAR_DELAY + 1).toBeLessThanOrEqual(c.spares * c.generation);
  });

  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['non-power-of-two slice', { sliceBits: 4000 }, /field 'sliceBits': must be a power of two/],
    ['missing size', { sliceBits: undefined }, /field 'sliceBits': give sliceBits or generation/],
    ['k = 0', { k: 0 }, /field 'k'/],
    ['key too wide', { keyBits: 1024 }, /field 'keyBits'/],
    ['seed too large', { seed: 2 ** 32 }, /field 'seed'/],
    ['unknown field', { colour: 'red' }, /unknown field 'colour'/],
    ['bad name', { name: '9lives' }, /field 'name'/],
    ['block fields on apbf', { blockBits: 64 }, /field 'blockBits': only for filter apbbf/],
    ['apbbf without blockBits', { filter: 'apbbf', bitsPerBlock: 4 }, /field 'blockBits': required/],
    [
      'word too narrow for one spare',
      { wordBits: 2, spares: 1 },
      /field 'spares': 1 spare bank\(s\) cannot be cleared in time/,
    ],
    ['word too wide', { wordBits: 4096 }, /field 'wordBits': must be at most 2048/],
  ];
  for (const [what, patch, msg] of bad) {
    it(`rejects ${what} with a one-line error naming the field`, () => {
      let err: unknown;
      try {
        deriveApbf({ ...base, ...patch }, 'cfg.json');
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(msg);
      expect((err as Error).message).toMatch(/^cfg\.json: /);
      expect((err as Error).message).not.toContain('\n');
    });
  }
});
