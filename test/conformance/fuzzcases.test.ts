/**
 * Conformance, part 7: every regression case a fuzz campaign wrote (test/fuzz-cases/*.json,
 * `bloomforge fuzz`) is replayed on the engines it failed on; it passes when the config is now
 * refused with one line naming a field, or builds and verifies with 0 mismatches.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runOnce, type FuzzCase } from '../../src/fuzz/index.js';

const DIR = path.resolve('test/fuzz-cases');
const files = fs
  .readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();

describe('fuzz regression cases', () => {
  it('the folder holds cases', () => {
    expect(files.length).toBeGreaterThan(0);
  });
  for (const file of files) {
    const c = JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')) as FuzzCase;
    it(`${file}: ${c.failure}`, async () => {
      const out = await runOnce(c, {
        verilator: c.engines.includes('verilator'),
        icarus: c.engines.includes('icarus'),
      });
      expect(out.kind === 'failed' ? out.failure : 'passed', JSON.stringify(c.config)).toBe('passed');
    });
  }
});
