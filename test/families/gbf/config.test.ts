/** GBF configs: what derives, and every refusal as one line naming its field. */
import { describe, expect, it } from 'vitest';
import { deriveGbf } from '../../../src/families/gbf/config.js';

const base = { name: 'g', filter: 'gbf', k0: 3, k1: 3, cellsPerBank: 1024, window: 500, keyBits: 64, seed: 1 };

describe('GBF config', () => {
  it('derives the banks, words and the decision classes (window defaulting to the config’s)', () => {
    const c = deriveGbf({ ...base, decision: { classes: [{ px: 0.001 }, { px: 0.01, window: 50, name: 'hot' }] } });
    expect(c.m).toBe(6 * 1024);
    expect(c.wordBits).toBe(16);
    expect(c.wordsPerBank).toBe(64);
    expect(c.layout).toBe('partitioned');
    expect(c.decision).toEqual({
      classes: [
        { px: 0.001, window: 500, name: 'class0' },
        { px: 0.01, window: 50, name: 'hot' },
      ],
      posteriorBits: 15,
    });
    expect(deriveGbf({ ...base, cellsPerBank: 2 }).wordBits).toBe(1);
  });

  for (const [what, over, field] of [
    ['k0 = 0', { k0: 0 }, 'k0'],
    ['too many banks', { k0: 40, k1: 30 }, 'k1'],
    ['cells not a power of two', { cellsPerBank: 1000 }, 'cellsPerBank'],
    ['one cell per bank', { cellsPerBank: 1 }, 'cellsPerBank'],
    ['words wider than half a bank', { cellsPerBank: 16, wordBits: 16 }, 'wordBits'],
    ['p_x of 1', { decision: { classes: [{ px: 1 }] } }, 'decision.classes.0.px'],
    ['no class', { decision: { classes: [] } }, 'decision.classes'],
    ['an unknown field', { timersPerBank: 4 }, '(config)'],
    ['k1 = 0', { k1: 0 }, 'k1'],
    ['a fractional k0', { k0: 2.5 }, 'k0'],
    ['window 0', { window: 0 }, 'window'],
    ['a word width not a power of two', { wordBits: 12 }, 'wordBits'],
    ['p_x of 0', { decision: { classes: [{ px: 0 }] } }, 'decision.classes.0.px'],
    ['a class window of 0', { decision: { classes: [{ px: 0.01, window: 0 }] } }, 'decision.classes.0.window'],
    ['17 classes', { decision: { classes: Array.from({ length: 17 }, () => ({ px: 0.01 })) } }, 'decision.classes'],
    ['posteriorBits 3', { decision: { classes: [{ px: 0.01 }], posteriorBits: 3 } }, 'decision.posteriorBits'],
    ['posteriorBits 25', { decision: { classes: [{ px: 0.01 }], posteriorBits: 25 } }, 'decision.posteriorBits'],
  ] as const)
    it(`refuses ${what}, naming '${field}'`, () => {
      expect(() => deriveGbf({ ...base, ...over }, 'cfg')).toThrow(
        field === '(config)'
          ? /^cfg: unknown field 'timersPerBank'$/
          : new RegExp(`^cfg: field '${field.replace(/\./g, '\\.')}': `),
      );
    });

  it('accepts the edges: one hash of each kind, 2 cells, 64 banks, 16 classes, posteriorBits 4 and 24', () => {
    expect(deriveGbf({ ...base, k0: 1, k1: 1, cellsPerBank: 2 }).wordsPerBank).toBe(2);
    expect(deriveGbf({ ...base, k0: 32, k1: 32 }).m).toBe(64 * 1024);
    const classes = Array.from({ length: 16 }, (_, i) => ({ px: (i + 1) / 100 }));
    for (const posteriorBits of [4, 24])
      expect(deriveGbf({ ...base, decision: { classes, posteriorBits } }).decision!.classes).toHaveLength(16);
  });
});
