/** The machine line both benches print with their figures (and give in --json). */
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { machineInfo, machineLine } from '../../src/bench/machine.js';

describe('machineInfo', () => {
  it('names the CPU, the cores, node, Verilator and the commit', async () => {
    const m = await machineInfo();
    expect(m.cores).toBe(os.cpus().length);
    expect(m.cpu).toBe(os.cpus()[0]!.model.trim());
    expect(m.node).toBe(process.version);
    expect(m.verilator).toMatch(/^Verilator \d+\.\d+/);
    expect(m.commit).toMatch(/^([0-9a-f]{7,}|unknown)$/);
    const line = machineLine(m);
    for (const part of [m.cpu, `${m.cores} cores`, m.node, m.verilator!, `commit ${m.commit}`])
      expect(line).toContain(part);
    expect(line.endsWith('(with uncommitted changes)')).toBe(m.dirty);
  });

  it('says when Verilator is missing and the tree had uncommitted changes', () => {
    const line = machineLine({ cpu: 'X', cores: 2, node: 'v20', verilator: null, commit: 'abc1234', dirty: true });
    expect(line).toBe('X, 2 cores, node v20, no Verilator, commit abc1234 (with uncommitted changes)');
  });
});
