/**
 * A² config derivation: defaults (κ = the seed's κ_a*, 16-bit words widened only when needed),
 * the zero-stall bound, and every bad input refused with a one-line error naming the field.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { deriveA2, flushCycles } from '../../../src/families/a2/config.js';
import { CLEAR_DELAY } from '../../../src/stages/clear.js';
import { ConfigError } from '../../../src/util/errors.js';

const base = { name: 'f', filter: 'a2', k: 4, bankBits: 4096, keyBits: 64, seed: 1 };

describe('A² config derivation', () => {
  it('defaults: κ = ⌊bankBits ln 2⌋ (the seed’s κ_a*), 16-bit words, window κ, slack κ − 1', () => {
    const c = deriveA2(base);
    expect(c.kappa).toBe(2839);
    expect([c.wordBits, c.depth, c.bits, c.window, c.slack]).toEqual([16, 256, 32768, 2839, 2838]);
  });

  it('the flush bound: depth + CLEAR_DELAY + 7 ≤ κ; the default word widens to meet it', () => {
    expect(flushCycles(16)).toBe(16 + CLEAR_DELAY + 7);
    const c = deriveA2({ ...base, bankBits: 1024, kappa: 40 }); // 64 words would need κ ≥ 75
    expect(c.wordBits).toBe(64);
    expect(flushCycles(c.depth)).toBeLessThanOrEqual(40);
  });

  it('edges that build: k = 1, the smallest bank (2 bits, κ = 13 = its bound), the largest bank (2^24 bits)', () => {
    const small = deriveA2({ ...base, k: 1, bankBits: 2, kappa: 13 });
    expect([small.wordBits, small.depth]).toEqual([1, 2]);
    const big = deriveA2({ ...base, k: 1, bankBits: 1 << 24 });
    expect(big.kappa).toBe(Math.floor((1 << 24) * Math.LN2));
    expect(big.wordBits).toBe(16);
  });

  const bad: [string, Record<string, unknown>, RegExp][] = [
    [
      'κ = 1 (no flush fits in one insert, even of two words)',
      { kappa: 1 },
      /^config: field 'kappa': kappa = 1 is too short .*flushing 2 words of 2048 bits takes 13 cycles .*use kappa >= 13$/,
    ],
    ['κ = 1 on the smallest bank', { bankBits: 2, kappa: 1 }, /field 'kappa': .*use kappa >= 13$/],
    ['κ below the bound of every word', { kappa: 12 }, /field 'kappa': kappa = 12 .*use kappa >= 13$/],
    [
      'a word too narrow for κ',
      { kappa: 100, wordBits: 16 },
      /field 'wordBits': 16-bit words .* use wordBits >= 64 or kappa >= 267$/,
    ],
    ['a word too wide', { wordBits: 4096 }, /field 'wordBits': must be at most 2048/],
    ['k = 0', { k: 0 }, /field 'k'/],
    ['k = 33', { k: 33 }, /field 'k'/],
    ['missing k', { k: undefined }, /field 'k': give k and bankBits/],
    ['missing bankBits', { bankBits: undefined }, /field 'bankBits': give bankBits/],
    ['bankBits not a power of two', { bankBits: 1000 }, /field 'bankBits': must be a power of two/],
    ['bankBits = 1', { bankBits: 1 }, /field 'bankBits'/],
    ['bankBits too large', { bankBits: 1 << 25 }, /field 'bankBits'/],
    ['a default κ too small for the bank', { bankBits: 8 }, /field 'bankBits': kappa = 5 .* or a larger bankBits$/],
    ['window with sizes', { window: 100, fp: 0.01 }, /field 'window': only without k, kappa and bankBits/],
    ['unknown field', { l: 3 }, /unknown field 'l'/],
  ];
  for (const [what, patch, msg] of bad) {
    it(`rejects ${what} with a one-line error naming the field`, () => {
      let err: unknown;
      try {
        deriveA2({ ...base, ...patch });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      const text = (err as Error).message;
      expect(text).not.toContain('\n');
      expect(text).toMatch(msg);
    });
  }

  it('the CLI refuses a bad config with exit 2, one line naming the field, nothing written', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'a2-bad-'));
    const cfg = path.join(dir, 'bad.json');
    fs.writeFileSync(cfg, JSON.stringify({ ...base, kappa: 12 }));
    const out = path.join(dir, 'out');
    const r = await execa(process.execPath, [path.resolve('bin/bloomforge.mjs'), 'generate', cfg, '-o', out], {
      reject: false,
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/field 'kappa'/);
    expect(fs.existsSync(out) && fs.readdirSync(out).length > 0).toBe(false);
  });
});
