/** Conformance, part 2 (fast): every preset's Verilog lints clean under Verilator -Wall. */
import { describe, expect, it } from 'vitest';
import { presetFilters } from '../../src/config/resolve.js';
import { lint } from '../helpers/tools.js';

describe('verilator --lint-only -Wall on every preset', () => {
  for (const f of presetFilters()) {
    it(`${f.name}: 0 warnings`, async () => {
      const r = await lint(f.design());
      expect(r.output).toBe('');
      expect(r.code).toBe(0);
    });
  }
});
