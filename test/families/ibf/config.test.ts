import { describe, expect, it } from 'vitest';
import { deriveIbf } from '../../../src/families/ibf/config.js';
import { ConfigError } from '../../../src/util/errors.js';
import { driveConfig } from '../../helpers/families.js';

const base = { name: 't', filter: 'ibf', keyBits: 64, seed: 1, k: 4, max: 4, cells: 1024, P: 4 };

function refused(o: Record<string, unknown>, field: string): string {
  let msg = '';
  try {
    deriveIbf({ ...base, ...o }, 'cfg');
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    msg = (e as Error).message;
  }
  expect(msg, JSON.stringify(o)).toMatch(new RegExp(`^cfg: field '${field}': `));
  expect(msg).not.toContain('\n');
  return msg;
}

describe('ibf configs: bad input is refused in one line naming the field', () => {
  it('the importance-aware deletes of §5.2 are models only (they need a global view of the cells)', () => {
    for (const d of ['probabilistic', 'probabilisticP', 'probabilisticVal', 'minImp', 'minImpPriority'])
      expect(refused({ delete: d }, 'delete')).toContain('global view');
    refused({ delete: 'bogus' }, 'delete');
    expect(refused({ delete: 'none' }, 'P')).toContain('P must be 0');
    expect(deriveIbf({ ...base, delete: 'none', P: 0 }).P).toBe(0);
  });

  it('MAX (the paper M) out of range or too wide for a block RAM word; insert scheme unknown', () => {
    refused({ max: 0 }, 'max');
    refused({ max: 70000 }, 'max');
    refused({ max: 1.5 }, 'max');
    refused({ insert: 'min' }, 'insert');
    expect(deriveIbf({ ...base, max: 65535, P: 0 }).cellsPerWord).toBe(1); // 16-bit cells: one per word
    expect(deriveIbf({ ...base, max: 4 }).d).toBe(3);
    expect(deriveIbf({ ...base, max: 7 }).d).toBe(3);
    expect(deriveIbf({ ...base, max: 8 }).d).toBe(4);
  });

  it('P above k·cellsPerWord, one cell per word with P > 0, banks of fewer than two words', () => {
    expect(refused({ P: 17 }, 'P')).toContain('larger than the 16 cells');
    refused({ P: -1 }, 'P');
    expect(refused({ cellsPerWord: 1 }, 'cellsPerWord')).toContain('use cellsPerWord >= 2');
    expect(refused({ max: 1000, P: 1 }, 'max')).toContain('one cell per word');
    refused({ cells: 1 }, 'cells');
    refused({ cells: 1000 }, 'cells');
    expect(refused({ cells: 8, cellsPerWord: 8 }, 'cellsPerWord')).toContain('at most cells/2 = 4');
    expect(() => deriveIbf({ ...base, bogus: 1 }, 'cfg')).toThrow(/^cfg: unknown field 'bogus'$/);
  });
});

describe('ibf configs: the edges build and equal the model', () => {
  const edges: Record<string, unknown>[] = [
    { k: 1, max: 1, cells: 4, P: 0 },
    { k: 1, max: 1, cells: 4, P: 2, cellsPerWord: 2 },
    { k: 3, max: 5, cells: 64, P: 6, insert: 'max' },
    { k: 2, max: 15, cells: 32, P: 8, cellsPerWord: 4 },
  ];
  for (const e of edges)
    it(JSON.stringify(e), () => {
      const c = deriveIbf({ ...base, ...e });
      const r = driveConfig(c, { ops: 1500, seed: 3, backpressure: 0.3 });
      expect(r.finished).toBe(true);
      expect(r.mismatches).toEqual([]);
      expect(r.model.compareMemories((n, a) => r.sim.readMemory(n, a)).mismatches).toEqual([]);
    });
});
