/**
 * The test tiers (test/helpers/presets.ts): `make test` runs the per-preset slow checks on presets
 * that cover every pipeline shape (or, for Yosys and Icarus, every `filter` value) and every
 * target, each the smallest of its kind;
 * `make test-full` on every preset; any other BLOOMFORGE_TESTS is refused naming it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { presetFilters } from '../../src/config/resolve.js';
import { REPO_ROOT } from '../../src/tools/index.js';
import { coverPresets, fullTier, pipelineShape, slowTierPresets } from '../helpers/presets.js';

const all = presetFilters();
const verilogBytes = (name: string): number => fs.statSync(path.join(REPO_ROOT, 'generated', `${name}.v`)).size;

describe('test tiers', () => {
  it('the cover holds every pipeline shape, filter value and target of the presets, each by its smallest, and fewer presets', () => {
    const cover = coverPresets(all);
    const kinds = (key: (f: (typeof all)[number]) => string): string[] => [...new Set(all.map(key))].sort();
    const covered = (key: (f: (typeof all)[number]) => string): string[] => [...new Set(cover.map(key))].sort();
    expect(covered((f) => f.config.filter)).toEqual(kinds((f) => f.config.filter));
    expect(covered((f) => f.config.target)).toEqual(kinds((f) => f.config.target));
    expect(covered((f) => pipelineShape(f.name))).toEqual(kinds((f) => pipelineShape(f.name)));
    for (const f of all) {
      const shape = pipelineShape(f.name);
      const smallest = Math.min(...all.filter((g) => pipelineShape(g.name) === shape).map((g) => verilogBytes(g.name)));
      if (verilogBytes(f.name) === smallest) expect(cover.map((g) => g.name)).toContain(f.name);
    }
    // That a family's choices (a decision unit, spectral RM, IBF's insert rule, the SPN key mix)
    // are shapes of their own and sizes are not is checked in each family's pipeline test.
    expect(cover.length).toBeLessThan(all.length);
    // The largest presets (minutes of Yosys each) are left to the full tier.
    const largest = [...all].sort((a, b) => verilogBytes(b.name) - verilogBytes(a.name))[0]!;
    expect(cover).not.toContain(largest);
  });

  it('the filter-value cover holds every filter value and target, each by its smallest, and fewer presets than the shape cover', () => {
    const cover = coverPresets(all, 'filter');
    const kinds = (key: (f: (typeof all)[number]) => string): string[] => [...new Set(all.map(key))].sort();
    expect([...new Set(cover.map((f) => f.config.filter))].sort()).toEqual(kinds((f) => f.config.filter));
    expect([...new Set(cover.map((f) => f.config.target))].sort()).toEqual(kinds((f) => f.config.target));
    for (const f of all) {
      const smallest = Math.min(
        ...all.filter((g) => g.config.filter === f.config.filter).map((g) => verilogBytes(g.name)),
      );
      if (verilogBytes(f.name) === smallest) expect(cover.map((g) => g.name)).toContain(f.name);
    }
    expect(cover.length).toBeLessThan(coverPresets(all).length);
    const t = slowTierPresets({}, 'filter');
    expect(t.filters.map((f) => f.name)).toEqual(cover.map((f) => f.name));
    expect(t.which).toMatch(/each filter value's and each target's smallest/);
    expect(slowTierPresets({ BLOOMFORGE_TESTS: 'full' }, 'filter').filters).toHaveLength(all.length);
  });

  it('BLOOMFORGE_TESTS: full runs every preset, unset the cover, anything else is refused naming it', () => {
    expect(fullTier({})).toBe(false);
    expect(fullTier({ BLOOMFORGE_TESTS: 'full' })).toBe(true);
    expect(slowTierPresets({ BLOOMFORGE_TESTS: 'full' }).filters).toHaveLength(all.length);
    const t = slowTierPresets({});
    expect(t.filters.map((f) => f.name)).toEqual(coverPresets(all).map((f) => f.name));
    expect(t.which).toMatch(new RegExp(`^${t.filters.length} of ${all.length} presets`));
    expect(() => fullTier({ BLOOMFORGE_TESTS: 'fast' })).toThrow(
      /BLOOMFORGE_TESTS must be 'full' or unset, got 'fast'/,
    );
  });
});
