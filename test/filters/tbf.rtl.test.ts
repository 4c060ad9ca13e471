/**
 * TBF/BTBF pipelines: golden Verilog, lint and synthesis cleanliness of every preset; II = 1 over
 * >= 3 wraps of T+ with 0 stall cycles; and the checks are not vacuous — a pipeline without
 * forwarding or without the expiry scanner is caught.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { emitVerilog } from '../../src/emit/verilog.js';
import { filterManifest } from '../../src/families/legacy.js';
import { buildTbf } from '../../src/families/tbf/rtl.js';
import { tbfLatency } from '../../src/families/tbf/params.js';
import { deriveTbf, tbfBankBlockRams } from '../../src/families/tbf/config.js';
import { decisionLayout } from '../../src/families/tbf/decision.js';
import { loadPreset, presetNamesOf } from '../../src/presets/index.js';
import { compareTimers, driveTbf } from '../../sim/verify/tbf.js';
import { lint, tmpDir } from '../helpers/tools.js';

const PRESETS = presetNamesOf('tbf', 'btbf');

describe('TBF/BTBF presets: golden files, lint, synthesis', () => {
  it('there are TBF, BTBF and decision-unit presets', () => {
    const cs = PRESETS.map((n) => deriveTbf(loadPreset(n)));
    expect(cs.some((c) => c.filter === 'tbf')).toBe(true);
    expect(cs.some((c) => c.filter === 'btbf')).toBe(true);
    expect(cs.some((c) => c.decision !== null)).toBe(true);
  });

  for (const name of PRESETS) {
    const c = deriveTbf(loadPreset(name), name);
    const d = buildTbf(c);

    it(`${name}: matches generated/${name}.v and its manifest (regenerate with make generate)`, () => {
      expect(emitVerilog(d)).toBe(fs.readFileSync(path.resolve('generated', `${name}.v`), 'utf8'));
      const manifest = JSON.parse(fs.readFileSync(path.resolve('generated', `${name}.manifest.json`), 'utf8'));
      expect(manifest).toEqual(JSON.parse(JSON.stringify(filterManifest(c, d))));
      expect(manifest.latency.cycles).toBe(tbfLatency(c));
      expect(manifest.parameters).toMatchObject({ k: c.k, window: c.window, padding: c.padding, tOmega: c.tOmega });
    });

    it(`${name}: 0 warnings under verilator --lint-only -Wall`, async () => {
      const r = await lint(d);
      expect(r.output).toBe('');
      expect(r.code).toBe(0);
    });

    it(`${name}: Yosys synth_ice40: check -assert passes, no latches, block RAMs as planned and within an HX8K`, async () => {
      const dir = tmpDir('bf-synth-');
      const file = path.join(dir, `${name}.v`);
      fs.writeFileSync(file, emitVerilog(d));
      const r = await execa('yosys', ['-p', `read_verilog ${file}; synth_ice40 -top ${name}; check -assert; stat`], {
        reject: false,
        all: true,
      });
      fs.rmSync(dir, { recursive: true, force: true });
      const out = r.all ?? '';
      expect(r.exitCode, out.slice(-3000)).toBe(0);
      const stat = out.slice(out.lastIndexOf('Number of cells:'));
      const cells = Object.fromEntries([...stat.matchAll(/^\s+(\S+)\s+(\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
      expect(Object.keys(cells).filter((k) => /LATCH|\$dlatch/i.test(k))).toEqual([]);
      const rom = c.decision
        ? (() => {
            const L = decisionLayout(c);
            return Math.ceil(L.width / 16) * Math.ceil(L.depth / 256);
          })()
        : 0;
      expect(cells.SB_RAM40_4K).toBe(c.k * tbfBankBlockRams(c.timersPerBank, c.timerBits, c.timersPerWord) + rom);
      expect(cells.SB_RAM40_4K).toBeLessThanOrEqual(32);
      expect(cells.SB_LUT4 ?? 0).toBeLessThanOrEqual(7680);
    });
  }
});

describe('TBF/BTBF pipeline behaviour', () => {
  for (const name of PRESETS) {
    it(`${name}: one op per cycle over >= 3 wraps of T+, 0 stall cycles, answers and timers equal the model`, () => {
      const c = deriveTbf(loadPreset(name));
      // Two thirds of the ops insert; enough of them for 3.5 wraps.
      const ops = Math.ceil((3.5 * c.blockSize * (c.tOmega + 1) * 3) / 2);
      const r = driveTbf(c, { ops, seed: 5, mix: { query: 1, insert: 1, testAndInsert: 1 } });
      expect(r.wraps).toBeGreaterThanOrEqual(3);
      expect(r.stallCycles).toBe(0);
      expect(r.lastAccept - r.firstAccept + 1).toBe(ops);
      expect(r.modelMismatches).toEqual([]);
      expect(compareTimers(r, c).mismatches).toEqual([]);
    });
  }

  const small = deriveTbf({
    name: 'small',
    filter: 'btbf',
    k: 3,
    timersPerBank: 256,
    timerBits: 8,
    // w mod B = 3: the expiry threshold ⌈(w − b)/B⌉ + 1 drops by one once b >= 3.
    window: 203,
    blockSize: 8,
    timersPerWord: 4,
    keyBits: 32,
    seed: 3,
  });

  it('the correct pipeline passes the same run the broken ones fail', () => {
    const r = driveTbf(small, { ops: 20_000, seed: 1 });
    expect(r.modelMismatches).toEqual([]);
    expect(compareTimers(r, small).mismatches).toEqual([]);
  });

  it('without forwarding, back-to-back hazards give wrong answers (caught)', () => {
    const r = driveTbf(small, { ops: 20_000, seed: 1 }, buildTbf(small, { forwarding: false }));
    expect(r.modelMismatches.length).toBeGreaterThan(0);
  });

  it('without the expiry scanner, stale timers are read as live after T+ wraps (caught)', () => {
    const r = driveTbf(small, { ops: 20_000, seed: 1 }, buildTbf(small, { scanner: false }));
    expect(r.wraps).toBeGreaterThan(0);
    expect(r.modelMismatches.length).toBeGreaterThan(0);
    expect(compareTimers(r, small).mismatches.length).toBeGreaterThan(0);
  });

  it('clear empties the filter; responses keep order and tags under back-pressure and idle cycles', () => {
    const r = driveTbf(small, {
      ops: 30_000,
      seed: 9,
      backpressure: 0.4,
      idle: 0.2,
      mix: { query: 3, insert: 3, testAndInsert: 3, clear: 0.01 },
    });
    expect(r.responses).toBe(30_000);
    expect(r.modelMismatches).toEqual([]);
  });
});
