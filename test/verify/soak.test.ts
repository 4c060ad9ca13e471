/**
 * Mid-stream resets in the stream driver and the soak built on it (src/verify/soak.ts): requests
 * cut off by a reset are counted and never answered, the hardware and the model start again
 * empty, and a pipeline that ignored the reset would be caught.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/resolve.js';
import { ModuleBuilder, type Sig } from '../../src/dsl/module.js';
import type { Design } from '../../src/ir/types.js';
import { soak } from '../../src/verify/soak.js';
import { drive } from '../../src/verify/stream.js';

/** The core with its reset input cut (the port stays, the logic never sees it). */
function ignoringReset(core: Design): Design {
  const m = new ModuleBuilder(`${core.name}_norst`);
  const inputs: Record<string, Sig> = {};
  for (const p of core.inputs)
    inputs[p.name] = p.name === 'rst' ? m.const(0, 1) : m.input(p.name, core.nets[p.net]!.width, p.doc);
  m.input('rst', 1, 'cut');
  const out = m.instance('', core, inputs);
  for (const p of core.outputs) m.output(p.name, out[p.name]!, p.doc);
  return m.build();
}

describe('resets mid-stream', () => {
  it('the driver pulses rst, counts the requests cut off, and every later answer still equals the model', () => {
    const f = loadConfig('apbf_k4_l3');
    const r = drive(f, {
      ops: 20_000,
      seed: 3,
      backpressure: 0.5,
      resetRate: 1 / 3000,
      exactWindow: true,
      mix: { testAndInsert: 1 },
    });
    expect(r.finished, r.stopReason ?? '').toBe(true);
    expect(r.resets).toBeGreaterThan(3);
    expect(r.lostToReset).toBeGreaterThan(0);
    expect(r.responses + r.lostToReset).toBe(20_000);
    expect(r.mismatches).toEqual([]);
    expect(r.window!.falseNegatives).toBe(0);
    expect(r.model.compareMemories((n, a) => r.sim.readMemory(n, a)).count).toBe(0);
  });

  it('a pipeline that ignores rst is caught (answers from before the reset)', () => {
    const f = loadConfig('apbf_k4_l3');
    const r = drive(f, {
      ops: 20_000,
      seed: 3,
      backpressure: 0.5,
      resetRate: 1 / 3000,
      mix: { testAndInsert: 1 },
      design: ignoringReset(f.design()),
    });
    expect(r.resets).toBeGreaterThan(3);
    expect(r.mismatchCount).toBeGreaterThan(0);
  });
});

describe('soak', () => {
  it('both parts run with resets, clears and back-pressure and come out clean (APBF, TBF, counting)', () => {
    for (const name of ['apbf_k4_l3', 'tbf_k4_w256', 'counting_k4_w4']) {
      const r = soak(loadConfig(name), { ops: 40_000, seed: 2, resetRate: 1 / 4000 });
      expect(r.ok, JSON.stringify(r.parts)).toBe(true);
      expect(r.parts.map((p) => p.part)).toEqual(['membership', 'every op']);
      expect(r.parts.reduce((s, p) => s + p.ops, 0)).toBe(40_000);
      for (const p of r.parts) expect(p.resets, `${name} ${p.part}`).toBeGreaterThan(0);
      const windowed = loadConfig(name).window() !== null;
      expect(r.parts[0]!.falseNegatives).toBe(windowed ? 0 : null);
      if (windowed) expect(r.parts[0]!.inWindow).toBeGreaterThan(0);
    }
  });
});
