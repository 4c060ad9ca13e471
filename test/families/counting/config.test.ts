import { describe, expect, it } from 'vitest';
import { deriveCounting, lanesFor } from '../../../src/families/counting/config.js';
import { resolveConfig } from '../../../src/config/resolve.js';
import { ConfigError } from '../../../src/util/errors.js';

const base = { name: 'f', filter: 'counting', k: 4, counterBits: 4, cellsPerBank: 1024, keyBits: 64, seed: 1 };

function refused(patch: Record<string, unknown>): string {
  try {
    resolveConfig({ ...base, ...patch }, 'cfg.json');
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    const msg = (e as Error).message;
    expect(msg).not.toContain('\n');
    expect(msg).toMatch(/^cfg\.json: (field '[^']+': |unknown field)/);
    return msg;
  }
  throw new Error(`accepted: ${JSON.stringify(patch)}`);
}

describe('counting/spectral config derivation', () => {
  it('packs the largest power of two of counters into a 16-bit word; items default to ⌊c·ln 2⌋', () => {
    const c = deriveCounting(base);
    expect([c.algorithm, c.lanes, c.wordBits, c.depth, c.remove]).toEqual(['ms', 4, 16, 256, true]);
    expect(c.items).toBe(Math.floor(1024 * Math.LN2));
    expect(lanesFor(16, 3)).toBe(4); // 12 of 16 bits used
    expect(lanesFor(16, 5)).toBe(2);
    expect(lanesFor(16, 16)).toBe(1);
    expect(lanesFor(72, 4)).toBe(16);
  });

  it('defaults: MS and RM have remove, MI has none; RM’s secondary is the primary’s size', () => {
    const sp = { ...base, filter: 'spectral' };
    expect(deriveCounting({ ...sp, algorithm: 'ms' }).remove).toBe(true);
    expect(deriveCounting({ ...sp, algorithm: 'mi' }).remove).toBe(false);
    const rm = deriveCounting({ ...sp, algorithm: 'rm' });
    expect([rm.remove, rm.secondaryCellsPerBank, rm.secondaryDepth]).toEqual([true, 1024, 256]);
    expect(deriveCounting({ ...sp, algorithm: 'rm', secondaryCellsPerBank: 256 }).secondaryDepth).toBe(64);
    expect(deriveCounting({ ...base, remove: false }).remove).toBe(false);
  });

  it('edges build: k = 1, w = 1 (16 counters a word), the widest counters of each target', () => {
    expect(deriveCounting({ ...base, k: 1 }).k).toBe(1);
    const w1 = deriveCounting({ ...base, counterBits: 1, cellsPerBank: 32 });
    expect([w1.lanes, w1.depth]).toEqual([16, 2]);
    const ice = deriveCounting({ ...base, counterBits: 16, cellsPerBank: 2 });
    expect([ice.lanes, ice.wordBits, ice.depth]).toEqual([1, 16, 2]);
    const ecp5 = deriveCounting({ ...base, counterBits: 32, target: 'ecp5' });
    expect([ecp5.lanes, ecp5.wordBits]).toEqual([1, 32]);
    const xil = deriveCounting({ ...base, counterBits: 32, wordBits: 72, target: 'xilinx' });
    expect([xil.lanes, xil.wordBits]).toEqual([2, 64]);
    expect(deriveCounting({ ...base, k: 16 }).k).toBe(16);
  });

  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['counter width 0', { counterBits: 0 }, /field 'counterBits'/],
    ['counters wider than 32 bits', { counterBits: 33 }, /field 'counterBits'/],
    [
      'counters wider than a block RAM word (iCE40: 16)',
      { counterBits: 17 },
      /field 'counterBits': a counter of 17 bits is wider than a block RAM word \(16 bits on ice40-hx8k\)/,
    ],
    ['counters wider than wordBits', { counterBits: 8, wordBits: 4 }, /field 'counterBits': .*wordBits = 4/],
    ['wordBits wider than the block RAM port', { wordBits: 32 }, /field 'wordBits': must be at most 16/],
    ['k = 0', { k: 0 }, /field 'k'/],
    ['k larger than allowed', { k: 17 }, /field 'k'/],
    ['cellsPerBank not a power of two', { cellsPerBank: 1000 }, /field 'cellsPerBank': must be a power of two/],
    ['a bank of one word', { cellsPerBank: 4 }, /field 'cellsPerBank': must be at least 8/],
    ['missing k', { k: undefined }, /field 'k': give k/],
    ['missing counterBits', { counterBits: undefined }, /field 'counterBits': required/],
    ['spectral without algorithm', { filter: 'spectral' }, /field 'algorithm': required for filter spectral/],
    ['counting with mi', { algorithm: 'mi' }, /field 'algorithm': filter counting is minimum selection/],
    ['unknown algorithm', { filter: 'spectral', algorithm: 'xx' }, /field 'algorithm'/],
    [
      'remove with MI',
      { filter: 'spectral', algorithm: 'mi', remove: true },
      /field 'remove': minimum increase \(mi\) takes no remove op: .*false negatives become unbounded/,
    ],
    [
      'secondary size without RM',
      { secondaryCellsPerBank: 512 },
      /field 'secondaryCellsPerBank': only for algorithm rm/,
    ],
    [
      'secondary larger than the primary',
      { filter: 'spectral', algorithm: 'rm', secondaryCellsPerBank: 2048 },
      /field 'secondaryCellsPerBank': must be at most cellsPerBank/,
    ],
    ['fp with explicit sizes', { fp: 0.01, items: 100 }, /field 'k': with items and fp the planner chooses/],
    ['fp without items', { k: undefined, counterBits: undefined, cellsPerBank: undefined, fp: 0.01 }, /field 'items'/],
    ['unknown field', { colour: 'red' }, /unknown field 'colour'/],
  ];
  for (const [what, patch, msg] of bad)
    it(`refuses ${what} with one line naming the field`, () => {
      expect(refused(patch)).toMatch(msg);
    });

  it('a config with items and fp goes to the planner and records the intent', () => {
    const f = resolveConfig({ name: 'p', filter: 'counting', items: 2000, fp: 0.01, keyBits: 64, seed: 1 }, 'cfg');
    const c = f.config as ReturnType<typeof deriveCounting>;
    expect(c.items).toBe(2000);
    expect(c.planned).toMatchObject({ items: 2000, fp: 0.01, counterBits: 4, algorithm: 'ms' });
    expect(f.analyze().values.fp).toBeLessThanOrEqual(0.01);
  });
});
