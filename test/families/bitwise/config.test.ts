/** Bitwise configs: the derivation, and every invalid parameter a one-line error naming its field. */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/resolve.js';
import { deriveBitwise } from '../../../src/families/bitwise/config.js';
import { ConfigError } from '../../../src/util/errors.js';
import { tmpDir } from '../../helpers/tools.js';

const base = { name: 'b', filter: 'bitwise', keyBits: 64, seed: 1 };
const level = (cells: number, width: number, k: number) => ({ cells, width, k });

describe('bitwise configs', () => {
  it('derives banks, packing, weights and the default n', () => {
    const c = deriveBitwise({ ...base, levels: [level(8192, 4, 4), level(2048, 4, 4), level(1024, 8, 4)] });
    expect(c.wordBits).toBe(16); // the iCE40's widest block RAM port
    expect(c.levels.map((L) => [L.bankCells, L.lanes, L.wordWidth, L.depth, L.offset])).toEqual([
      [2048, 4, 16, 512, 0],
      [512, 4, 16, 128, 4],
      [256, 2, 16, 128, 8],
    ]);
    expect(c.countBits).toBe(16);
    expect(c.items).toBe(Math.floor(2048 * Math.LN2));
    // Odd widths pack a power of two of counters: 5-bit counters, 3 per 16 bits -> 2.
    expect(deriveBitwise({ ...base, levels: [level(64, 5, 1)] }).levels[0]).toMatchObject({ lanes: 2, wordWidth: 10 });
    // At most half a bank per word: a bank keeps two words.
    expect(deriveBitwise({ ...base, levels: [level(4, 1, 2)] }).levels[0]).toMatchObject({ lanes: 1, depth: 2 });
  });

  it('the edges build: l = 1, w = 1, k = 1, two counters; the largest widths per target', () => {
    expect(deriveBitwise({ ...base, levels: [level(2, 1, 1)] }).levels[0]!.depth).toBe(2);
    expect(deriveBitwise({ ...base, levels: [level(64, 16, 2)] }).levels[0]!.lanes).toBe(1);
    const x = deriveBitwise({ ...base, target: 'xilinx', levels: [level(64, 32, 2), level(64, 32, 2)] });
    expect(x.wordBits).toBe(64);
    expect(x.countBits).toBe(64);
    expect(deriveBitwise({ ...base, target: 'ecp5', levels: [level(64, 32, 1)] }).wordBits).toBe(36);
  });

  const bad: [string, Record<string, unknown>, string][] = [
    ['no level', { levels: [] }, 'levels'],
    ['nine levels', { levels: Array.from({ length: 9 }, () => level(8, 1, 1)) }, 'levels'],
    ['width 0', { levels: [level(64, 4, 2), level(64, 0, 2)] }, 'levels.1.width'],
    ['k 0', { levels: [level(64, 4, 0)] }, 'levels.0.k'],
    ['k 17', { levels: [level(64 * 17, 4, 17)] }, 'levels.0.k'],
    ['cells 0', { levels: [level(0, 4, 1)] }, 'levels.0.cells'],
    ['cells not a multiple of k', { levels: [level(100, 4, 3)] }, 'levels.0.cells'],
    ['cells/k not a power of two', { levels: [level(96, 4, 2)] }, 'levels.0.cells'],
    ['one counter per bank', { levels: [level(4, 4, 4)] }, 'levels.0.cells'],
    ['cells wider than the iCE40 block RAM word', { levels: [level(64, 4, 2), level(64, 17, 2)] }, 'levels.1.width'],
    ['cells wider than wordBits', { levels: [level(64, 8, 2)], wordBits: 4 }, 'levels.0.width'],
    ['a word wider than the block RAM port', { levels: [level(64, 8, 2)], wordBits: 32 }, 'wordBits'],
    ['a count wider than 64 bits', { target: 'xilinx', levels: [1, 2, 3].map(() => level(64, 32, 2)) }, 'levels'],
    ['width 33', { target: 'xilinx', levels: [level(64, 33, 2)] }, 'levels.0.width'],
    ['a non-integer width', { levels: [level(64, 2.5, 2)] }, 'levels.0.width'],
    ['an unknown level field', { levels: [{ cells: 64, width: 4, k: 2, depth: 3 }] }, 'levels.0'],
    ['items 0', { levels: [level(64, 4, 2)], items: 0 }, 'items'],
  ];
  for (const [what, fields, field] of bad)
    it(`refuses ${what}, naming '${field}' in one line`, () => {
      let err: unknown;
      try {
        resolveConfig({ ...base, ...fields }, 'cfg');
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      const msg = (err as Error).message;
      expect(msg).not.toContain('\n');
      if (field === 'levels.0' && what.includes('unknown')) expect(msg).toMatch(/unknown field 'depth'/);
      else expect(msg).toMatch(new RegExp(`^cfg: field '${field.replace(/\./g, '\\.')}': `));
    });

  it('the CLI exits 2 with that line and writes nothing', async () => {
    const dir = tmpDir('bf-bitwise-');
    const cfg = path.join(dir, 'bad.json');
    fs.writeFileSync(cfg, JSON.stringify({ ...base, levels: [level(64, 4, 2), level(64, 17, 2)] }));
    const r = await execa(
      process.execPath,
      [path.resolve('bin/bloomforge.mjs'), 'generate', cfg, '-o', path.join(dir, 'out')],
      {
        reject: false,
        all: true,
      },
    );
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toMatch(
      /^bloomforge: bad\.json: field 'levels\.1\.width': 17-bit cells are wider than the 16-bit block RAM word/,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(fs.existsSync(path.join(dir, 'out'))).toBe(false);
  });
});
