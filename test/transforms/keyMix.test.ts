/**
 * The key mix in hardware (src/transforms/keyMix.ts): its logic equals the reference bit for bit at
 * every width; wrapped around a family's core it keeps the core's ports, memories and latency,
 * lints clean, and the mixed filter verifies against the mixed model — with memories that differ
 * from the unmixed filter's on the same stream (the mix is really in the key path).
 */
import { describe, expect, it } from 'vitest';
import { loadPreset, resolveConfig } from '../../src/config/resolve.js';
import { ModuleBuilder } from '../../src/dsl/module.js';
import { mixPlan, spnMix } from '../../src/model/keyMix.js';
import { spnMixLogic } from '../../src/transforms/keyMix.js';
import { CompiledSim } from '../../sim/compiled.js';
import { drive } from '../../src/verify/stream.js';
import { lint } from '../helpers/tools.js';

const mixed = (preset: string, extra: Record<string, unknown> = {}) =>
  resolveConfig({ ...(loadPreset(preset) as object), keyMix: 'spn', ...extra }, `preset ${preset}`);

describe('key mix logic', () => {
  it('equals the reference mix at widths 8 to 512', () => {
    for (const bits of [8, 9, 10, 11, 16, 33, 64, 104, 512]) {
      const m = new ModuleBuilder(`mix${bits}`);
      m.output('y', spnMixLogic(m, m.input('x', bits), 77));
      const sim = new CompiledSim(m.build());
      const p = mixPlan(bits, 77);
      for (let i = 0; i < 40; i++) {
        const x = (BigInt(i) * 0x9e3779b97f4a7c15f39cc0605cedc835n + BigInt(i)) & ((1n << BigInt(bits)) - 1n);
        sim.poke('x', x);
        sim.settle();
        expect(sim.peek('y'), `width ${bits}, key ${x}`).toBe(spnMix(x, p));
      }
    }
  });
});

describe('a core with the key mix', () => {
  it("keeps the core's ports, memories and latency", () => {
    const plain = resolveConfig(loadPreset('apbf_k4_l3'), 'preset apbf_k4_l3');
    const f = mixed('apbf_k4_l3');
    const a = plain.design();
    const b = f.design();
    expect(b.name).toBe(a.name);
    expect(b.inputs.map((p) => p.name)).toEqual(a.inputs.map((p) => p.name));
    expect(b.outputs.map((p) => p.name)).toEqual(a.outputs.map((p) => p.name));
    const mems = (d: typeof a) =>
      d.cells.flatMap((c) => (c.kind === 'memory' ? [`${c.name}:${c.width}x${c.depth}`] : []));
    expect(mems(b)).toEqual(mems(a));
    expect(f.protocol().latency).toBe(plain.protocol().latency);
    expect(f.manifest().parameters).toMatchObject({ keyMix: 'spn' });
    expect(plain.manifest().parameters).not.toHaveProperty('keyMix');
  });

  it('lints clean under verilator -Wall (APBF, 104-bit keys: a width that is not a multiple of 64)', async () => {
    const r = await lint(mixed('apbf_k4_l3', { name: 'apbf_mix104', keyBits: 104 }).design());
    expect(r.output).toBe('');
    expect(r.code).toBe(0);
  });

  for (const preset of [
    'apbf_k4_l3',
    'btbf_k4_w512_b16',
    'bloom_partitioned_k4_4k',
    'counting_k4_w4',
    'stable_d2_k3',
  ]) {
    it(`${preset}: the mixed filter equals its model (responses, memories), and its memories are not the unmixed ones`, () => {
      const f = mixed(preset);
      const r = drive(f, { ops: 3000, seed: 4, backpressure: 0.3, idle: 0.05 });
      expect(r.finished, r.stopReason ?? '').toBe(true);
      expect(r.mismatches).toEqual([]);
      const m = r.model.compareMemories((name, a) => r.sim.readMemory(name, a));
      expect(m.checked).toBeGreaterThan(0);
      expect(m.mismatches).toEqual([]);
      // The same stream without the mix leaves other memory contents.
      const plain = drive(resolveConfig(loadPreset(preset), `preset ${preset}`), {
        ops: 3000,
        seed: 4,
        backpressure: 0.3,
        idle: 0.05,
      });
      let differ = 0;
      for (const c of f.design().cells)
        if (c.kind === 'memory')
          for (let a = 0; a < c.depth; a++)
            if (r.sim.readMemory(c.name, a) !== plain.sim.readMemory(c.name, a)) differ++;
      expect(differ).toBeGreaterThan(0);
    });
  }
});
