/**
 * The test tiers (test/helpers/presets.ts): `make test` runs the per-preset slow checks on presets
 * that cover every pipeline (`filter` value) and every target, each the smallest of its kind;
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
    // Choices that change the hardware are shapes of their own: a decision unit, spectral RM's
    // remove, IBF's insert rule, the SPN key mix.
    for (const [a, b] of [
      ['btbf_k4_w512_b16', 'btbf_k3_w256_b8_decision'],
      ['gbf_k4_c4096', 'gbf_k4_c4096_decision'],
      ['spectral_mi_k4_w4', 'spectral_rm_k4_w4'],
      ['ibf_imp_k4_m4', 'ibf_max_k4_m4'],
      ['apbf_k4_l3', 'apbf_k4_l3_mix'],
    ])
      expect(pipelineShape(a!), `${a} vs ${b}`).not.toBe(pipelineShape(b!));
    // Sizes alone are not: two APBF presets of other k and l share a shape.
    expect(pipelineShape('apbf_k4_l3')).toBe(pipelineShape('apbf_k10_l7'));
    expect(cover.length).toBeLessThan(all.length);
    // The largest presets (minutes of Yosys each) are left to the full tier.
    const largest = [...all].sort((a, b) => verilogBytes(b.name) - verilogBytes(a.name))[0]!;
    expect(cover).not.toContain(largest);
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
