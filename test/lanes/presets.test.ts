/**
 * The N-lane presets (JSON files with `lanes` in a family's presets/ folder): golden Verilog,
 * lint-clean, the declared latency measured, and a verified run — what the one-lane presets get
 * from test/conformance/, for the lanes' wrapper. (Verilator co-simulation: lanes.slow.test.ts.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lanePresetNames, loadConfig, presetNames } from '../../src/config/resolve.js';
import { lanePresets, loadLaneConfig } from '../../src/config/lanes.js';
import { loadFilter } from '../../src/config/load.js';
import { driveLanes } from '../../src/verify/lanes.js';
import { laneLatencies } from '../helpers/lanes.js';
import { lint } from '../helpers/tools.js';

describe('N-lane presets', () => {
  it('there are some, apart from the one-lane presets; the one loader resolves them as N-lane filters, the one-lane resolver refuses them naming lanes', () => {
    const names = lanePresetNames();
    expect(names.length).toBeGreaterThanOrEqual(2);
    for (const n of names) {
      expect(presetNames()).not.toContain(n);
      expect(() => loadConfig(n)).toThrow(/field 'lanes': an N-lane config/);
      const f = loadFilter(n);
      expect(f.kind).toBe('lanes');
      expect(f.files()).toEqual(loadLaneConfig(n).files());
    }
    // A one-lane preset stays one-lane, unless the shape is given.
    expect(loadFilter(presetNames()[0]!).kind).toBe('one');
    const two = loadFilter('apbf_k4_l3', { lanes: 2, target: 'ecp5' });
    expect([two.kind, two.lanes, two.shards]).toEqual(['lanes', 2, 2]);
    expect(loadFilter('apbf_k4_l3', { asLanes: true }).lanes).toBe(1);
  });

  for (const lf of lanePresets()) {
    it(`${lf.name} (${lf.lanes} × ${lf.shards}): golden files equal a fresh generation, deterministically`, () => {
      const files = lf.files();
      for (const [name, text] of Object.entries(files))
        expect(text, `${name}: run make generate`).toBe(fs.readFileSync(path.join('generated', name), 'utf8'));
      expect(loadLaneConfig(lf.name).files()).toEqual(files);
    });

    it(`${lf.name}: 0 Verilator -Wall warnings`, async () => {
      const r = await lint(lf.design());
      expect(r.output).toBe('');
      expect(r.code).toBe(0);
    });

    it(`${lf.name}: out<i>_valid rises the manifest's latency after acceptance on every lane`, () => {
      expect(laneLatencies(lf)).toEqual(Array.from({ length: lf.lanes }, () => lf.latency()));
      expect((lf.manifest().latency as { cycles: number }).cycles).toBe(lf.latency());
    });

    it(`${lf.name}: a verified run (lane order, linear order, answers, memories) under back-pressure`, () => {
      const r = driveLanes(lf, { opsPerLane: 1500, seed: 4, backpressure: 0.2, idle: 0.05 });
      expect(r.finished).toBe(true);
      expect(r.mismatches).toEqual([]);
      expect(r.responses).toBe(r.ops);
      expect(r.ops).toBe(1500 * lf.lanes);
      expect(r.memory!.mismatches).toEqual([]);
      expect(r.memory!.checked).toBeGreaterThan(0);
    });
  }
});
