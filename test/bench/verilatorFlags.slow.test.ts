/**
 * `bench:verilator-flags`' build variants (src/bench/verilatorFlags.ts): `default` is the build
 * every other command makes, each other variant changes one thing, the benches' variant is one of
 * them, and timing two variants on one design gives rates and equal outputs from distinct builds.
 */
import { describe, expect, it } from 'vitest';
import { EXAMPLES } from '../../src/examples/index.js';
import { timeVariants } from '../../src/bench/sim.js';
import { BENCH_VARIANT, VERILATOR_VARIANTS, variantByName } from '../../src/bench/verilatorFlags.js';
import { buildVerilator, defaultVariant, makeFlags } from '../../sim/cosim/verilator.js';

describe('Verilator build variants', () => {
  it('default is what the commands build; each other variant differs from it; the bench variant exists', () => {
    const names = VERILATOR_VARIANTS.map((v) => v.name);
    expect(new Set(names).size).toBe(names.length);
    expect(variantByName('default').variant).toEqual(defaultVariant({}));
    expect(defaultVariant({}).make.join(' ')).toBe(makeFlags({}));
    for (const v of VERILATOR_VARIANTS.slice(1)) expect(v.variant, v.name).not.toEqual(defaultVariant({}));
    expect(names).toContain(BENCH_VARIANT);
    expect(() => variantByName('O9')).toThrow(/unknown Verilator variant 'O9' \(one of default, /);
  });

  it('two variants on one design: distinct builds, a rate per repetition, outputs equal', async () => {
    const d = { ...EXAMPLES.counter!(), name: 'counter_variants' };
    const two = [variantByName('default'), variantByName('cxx-O3')];
    const a = await buildVerilator(d, { variant: two[0]!.variant });
    const b = await buildVerilator(d, { variant: two[1]!.variant });
    expect(a.dir).not.toBe(b.dir);
    const r = await timeVariants(d, 5000, two, 2);
    expect(r.timings.map((t) => t.variant)).toEqual(['default', 'cxx-O3']);
    for (const t of r.timings) {
      expect(t.runs).toHaveLength(2);
      expect(t.median).toBeGreaterThan(0);
      expect(t.outputsEqual).toBe(true);
    }
  });
});
