/**
 * `bench:sim-scaling`'s designs (src/bench/scripts/scaling.ts): every point builds, the memory sweep grows
 * the block RAM contents 1024-fold at fixed k and l, the logic sweep grows the slices at fixed
 * size, and the largest point runs on both TS cycle loops with equal outputs (the Verilator side is
 * what the bench itself compares; not run here).
 */
import { describe, expect, it } from 'vitest';
import { benchStimulus } from '../../src/bench/sim.js';
import { resolveConfig } from '../../src/config/resolve.js';
import type { Design, MemoryCell } from '../../src/ir/types.js';
import { CompiledSim } from '../../sim/compiled.js';
import { LOGIC_POINTS, MEMORY_POINTS, scalingConfig } from '../../src/bench/scripts/scaling.js';

const design = (k: number, l: number, s: number): Design => {
  const c = scalingConfig(k, l, s);
  return resolveConfig(c, String(c.name)).design();
};
const memoryBits = (d: Design): number =>
  d.cells.filter((c): c is MemoryCell => c.kind === 'memory').reduce((n, m) => n + m.width * m.depth, 0);

describe('bench:sim-scaling designs', () => {
  it('memory sweep: slices of 2^10 .. 2^20 bits at (4, 3); logic sweep: k + l from 2 to 31 at 4096 bits', () => {
    expect(MEMORY_POINTS[0]).toBe(10);
    expect(MEMORY_POINTS.at(-1)).toBe(20);
    const small = design(4, 3, 2 ** 10);
    const large = design(4, 3, 2 ** 20);
    expect(memoryBits(large)).toBeGreaterThanOrEqual(7 * 2 ** 20);
    expect(memoryBits(large) / memoryBits(small)).toBeCloseTo(1024, 0);
    const sizes = LOGIC_POINTS.map(([k, l]) => design(k, l, 4096).cells.length);
    expect(LOGIC_POINTS.map(([k, l]) => k + l)).toEqual([2, 3, 5, 7, 11, 15, 19, 31]);
    for (let i = 1; i < sizes.length; i++) expect(sizes[i]!).toBeGreaterThan(sizes[i - 1]!);
    const names = new Set([...MEMORY_POINTS.map((b) => scalingConfig(4, 3, 2 ** b).name)]);
    expect(names.size).toBe(MEMORY_POINTS.length);
  });

  it('the 2^20-bit point runs on the WebAssembly and JavaScript loops with equal outputs', () => {
    const d = design(4, 3, 2 ** 20);
    // Past the power-up clear sweep (one word of every slice per cycle: 2^20 / 16 cycles).
    const cycles = 2 ** 16 + 3000;
    const stim = benchStimulus(d, cycles);
    const outs = (['wasm', 'js'] as const).map((engine) => {
      const sim = new CompiledSim(d, { engine });
      const out = new Uint32Array(cycles * sim.layout.outputWords);
      sim.runBatch(stim, cycles, out);
      return out;
    });
    expect(outs[0]).toEqual(outs[1]);
    expect(outs[0]!.some((x) => x !== 0)).toBe(true);
    expect(outs[0]!.subarray(0, 2 ** 15).every((x) => x === 0)).toBe(true);
  });
});
