import { describe, expect, it } from 'vitest';
import { deriveStable } from '../../../src/families/stable/config.js';
import { ConfigError } from '../../../src/util/errors.js';
import { driveConfig } from '../../helpers/families.js';

const base = { name: 't', filter: 'stable', keyBits: 64, seed: 1, k: 3, d: 2, cells: 2048, P: 21 };

function refused(o: Record<string, unknown>, field: string): string {
  let msg = '';
  try {
    deriveStable({ ...base, ...o }, 'cfg');
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    msg = (e as Error).message;
  }
  expect(msg, JSON.stringify(o)).toMatch(new RegExp(`^cfg: field '${field}': `));
  expect(msg).not.toContain('\n');
  return msg;
}

describe('stable configs: bad input is refused in one line naming the field', () => {
  it('d = 0, d wider than a block RAM word', () => {
    refused({ d: 0 }, 'd');
    expect(refused({ d: 17, P: 0 }, 'd')).toContain('wider than a ice40-hx8k block RAM word (16 bits)');
    // ECP5 words are 36 bits: d = 19 fits a word, but only one cell, so P > 0 is refused on d.
    expect(refused({ d: 19, target: 'ecp5', P: 3 }, 'd')).toContain('one cell per word');
    expect(deriveStable({ ...base, d: 17, target: 'ecp5', P: 3 }).cellsPerWord).toBe(2);
  });

  it('P larger than the cells an insert can decrement (k·cellsPerWord), P negative, P not an integer', () => {
    expect(refused({ P: 25 }, 'P')).toContain('larger than the 24 cells');
    refused({ P: -1 }, 'P');
    refused({ P: 1.5 }, 'P');
  });

  it('one cell per word with P > 0 (the decrement would only hit the cell set to Max)', () => {
    expect(refused({ d: 9, P: 1 }, 'd')).toContain('one cell per word');
    expect(refused({ cellsPerWord: 1, P: 1 }, 'cellsPerWord')).toContain('use cellsPerWord >= 2');
  });

  it('words wider than four block RAMs side by side, or a bank of fewer than two words', () => {
    expect(refused({ d: 3, cellsPerWord: 32 }, 'cellsPerWord')).toContain('96 bits');
    expect(refused({ cells: 16, cellsPerWord: 16 }, 'cellsPerWord')).toContain('at most cells/2 = 8');
    refused({ cells: 1 }, 'cells');
    expect(refused({ cells: 3000 }, 'cells')).toContain('power of two');
    refused({ cellsPerWord: 3 }, 'cellsPerWord');
  });

  it('k = 0, k too large, sizes missing, planner fields mixed with sizes, unknown fields', () => {
    refused({ k: 0 }, 'k');
    refused({ k: 33 }, 'k');
    refused({ P: undefined }, 'P');
    refused({ d: undefined }, 'd');
    refused({ fp: 0.01 }, 'fp');
    refused({ window: 100 }, 'window');
    expect(() => deriveStable({ ...base, bogus: 1 }, 'cfg')).toThrow(/^cfg: unknown field 'bogus'$/);
  });
});

describe('stable configs: the edges build and equal the model (stream driver, back-pressure, poisoned collisions)', () => {
  const edges: [string, Record<string, unknown>][] = [
    ['k = 1, d = 1, P = 1 (two-cell words)', { k: 1, d: 1, cells: 4, P: 1 }],
    ['k = 1, d = 1, P = 0', { k: 1, d: 1, cells: 2, P: 0 }],
    ['P = 1 with k = 3 (two banks never decrement)', { k: 3, d: 2, cells: 64, P: 1 }],
    ['P = k·cellsPerWord (every cell of the word)', { k: 2, d: 2, cells: 32, cellsPerWord: 4, P: 8 }],
    ['d = 16, one cell per word, P = 0', { k: 2, d: 16, cells: 8, P: 0 }],
    ['d = 4 in 64-bit words (four block RAMs wide)', { k: 2, d: 4, cells: 64, cellsPerWord: 16, P: 20 }],
    ['k = 32 banks, 8-bit keys', { k: 32, d: 2, cells: 16, P: 100, keyBits: 8 }],
    ['k = 9 (two generator lanes), 200-bit keys', { k: 9, d: 2, cells: 256, P: 13, keyBits: 200 }],
  ];
  for (const [name, o] of edges) {
    it(name, () => {
      const c = deriveStable({ ...base, ...o });
      const r = driveConfig(c, { ops: 1500, seed: 2, backpressure: 0.3, idle: 0.1 });
      expect(r.finished, r.stopReason ?? '').toBe(true);
      expect(r.mismatches).toEqual([]);
      expect(r.model.compareMemories((n, a) => r.sim.readMemory(n, a)).mismatches).toEqual([]);
    });
  }

  it('the largest sizes derive (k = 32, 2^24 cells per bank, 32 cells per word on Xilinx)', () => {
    const c = deriveStable({ ...base, k: 32, d: 2, cells: 1 << 24, cellsPerWord: 32, P: 1024, target: 'xilinx' });
    expect(c.depth).toBe(1 << 19);
    expect(c.wordBits).toBe(64);
  });
});
