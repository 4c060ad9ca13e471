/**
 * The small fixed fuzz campaign CI runs (make test): every family in turn, each config refused
 * naming a field or verified three ways (model, TS simulator, Verilator) with random
 * back-pressure. The README gives the figures of a long campaign and its command.
 */
import { describe, expect, it } from 'vitest';
import { FAMILIES } from '../../src/families/index.js';
import { fuzz, summaryLine } from '../../src/fuzz/index.js';
import { fullTier } from '../helpers/presets.js';

// One config per family in make test, two in make test-full (the first of them the same).
const perFamily = fullTier() ? 2 : 1;

describe('fixed fuzz campaign', () => {
  it(`${perFamily} config(s) per family, 2000 ops each, seed 1: 0 failed`, { timeout: 1_200_000 }, async () => {
    const r = await fuzz({ configs: perFamily * FAMILIES.length, ops: 2000, seed: 1, shrink: false });
    expect(r.cases.map((c) => `${JSON.stringify(c.config)}: ${c.failure}`)).toEqual([]);
    expect(summaryLine(r)).toMatch(/, 0 failed$/);
  });
});
