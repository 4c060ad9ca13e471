import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { device } from '../../src/device/index.js';

const BIN = path.resolve('bin/bloomforge.mjs');
const run = (args: string[]) => execa(process.execPath, [BIN, ...args], { reject: false, all: true });

describe('synth', () => {
  it('apbf_k4_l3 fits an iCE40 HX8K and nextpnr reports a positive fmax (1 seed)', async () => {
    const r = await run(['synth', 'apbf_k4_l3', '--target', 'ice40-hx8k', '--seeds', '1', '--json']);
    expect(r.exitCode, r.all).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.brams).toBe(8);
    expect(j.luts).toBeGreaterThan(0);
    expect(j.luts).toBeLessThanOrEqual(device('ice40-hx8k').capacity!.luts);
    expect(j.ffs).toBeGreaterThan(0);
    expect(j.fmaxMHz).toBeGreaterThan(0);
    expect(j.fmaxBySeed).toHaveLength(1);
    expect(j.criticalPath.cells.length).toBeGreaterThan(1);
  });

  it('a design that cannot fit is refused naming the resource (exit 2)', async () => {
    const r = await run(['synth', 'apbbf_k3_l8_b512_8', '--target', 'ice40-hx8k', '--seeds', '1']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/does not fit ice40-hx8k: SB_RAM40_4K 96 used, 32 available/);
  });

  it('ecp5 gives resource counts and says there is no timing', async () => {
    const r = await run(['synth', 'apbf_k4_l3', '--target', 'ecp5', '--json']);
    expect(r.exitCode, r.all).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.fmaxMHz).toBeNull();
    expect(j.brams).toBeGreaterThan(0);
    expect(j.note).toMatch(/no place-and-route/);
  });
});

describe('bench', () => {
  it('--json has every figure, ops/cycle <= 1 and ratios computed from the printed figures', async () => {
    const r = await run(['bench', 'apbf_k4_l3', '--seeds', '1', '--cycles', '20000', '--json']);
    expect(r.exitCode, r.all).toBe(0);
    const j = JSON.parse(r.stdout);
    for (const key of [
      'opsPerCycle',
      'fmaxMHz',
      'hwMopsPerSec',
      'simCyclesPerSec',
      'verilatorCyclesPerSec',
      'simOverVerilator',
      'swOpsPerSec',
      'hwOverSw',
    ]) {
      expect(j, key).toHaveProperty(key);
    }
    expect(j.opsPerCycle).toBeGreaterThan(0.99);
    expect(j.opsPerCycle).toBeLessThanOrEqual(1);
    expect(j.agingName).toBe('shifts');
    expect(j.agingEvents).toBeGreaterThanOrEqual(10);
    expect(j.stallCycles).toBe(0);
    expect(j.hwMopsPerSec).toBeCloseTo(j.fmaxMHz * j.opsPerCycle, 9);
    expect(j.simOverVerilator).toBeCloseTo(j.simCyclesPerSec / j.verilatorCyclesPerSec, 9);
    expect(j.hwOverSw).toBeCloseTo((j.hwMopsPerSec * 1e6) / j.swOpsPerSec.testAndInsert, 6);
    for (const op of ['insert', 'query', 'testAndInsert']) expect(j.swOpsPerSec[op]).toBeGreaterThan(0);
  });
});
