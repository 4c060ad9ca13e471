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
  ] as const)
    it(`refuses ${what}, naming '${field}'`, () => {
      expect(() => deriveGbf({ ...base, ...over }, 'cfg')).toThrow(
        field === '(config)'
          ? /^cfg: unknown field 'timersPerBank'$/
          : new RegExp(`^cfg: field '${field.replace(/\./g, '\\.')}': `),
      );
    });
});
