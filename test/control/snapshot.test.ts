/**
 * The control port (src/control/port.ts) and snapshots through it (src/control/snapshot.ts,
 * roundtrip.ts): a snapshot taken mid-stream from the simulator and written into a fresh one
 * goes on cycle for cycle like a run that never stopped; the port is transparent while not
 * frozen; a corrupted snapshot is caught; the Verilog is lint-clean; a snapshot file that does
 * not fit the design is refused naming the field.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/resolve.js';
import { modelRoundTrip, roundTrip } from '../../src/control/roundtrip.js';
import { checkSnapshot, controlMap } from '../../src/control/snapshot.js';
import { lint, tmpDir } from '../helpers/tools.js';

// One preset per family (and the blocked and counting variants), one with a key mix.
const PRESETS = [
  'apbf_k4_l3',
  'apbbf_k2_l3_b512_4',
  'tbf_k4_w256',
  'btbf_k4_w512_b16',
  'a2_k10_b4096',
  'stable_d2_k3',
  'bloom_blocked_b512_4_16k',
  'counting_k4_w4',
  'bitwise_l3_w448',
  'gbf_k4_c4096',
  'pbf2_t256_k3_2k',
  'ibf_imp_k4_m4',
  'apbf_k4_l3_mix',
];

describe('snapshot mid-stream, restore into a fresh simulator, continue', () => {
  for (const name of PRESETS) {
    it(`${name}: 0 mismatches on every core output and counter, every block RAM word equal`, () => {
      const f = loadConfig(name);
      const r = roundTrip(f, { cycles: 3000, at: 1300, seed: 11 });
      expect(
        r.mismatches,
        JSON.stringify(r.mismatches, (_, v) => (typeof v === 'bigint' ? String(v) : v)),
      ).toEqual([]);
      expect(r.memoryMismatches).toBe(0);
      expect(r.memoryWords).toBeGreaterThan(0);
      expect(r.requests).toBeGreaterThan(500n); // the stream did flow
      const map = controlMap(f.controlDesign());
      expect(r.snapshot.registers.map((x) => x.name)).toEqual(map.chain.map((x) => x.name));
      expect(r.takeCycles).toBe(1 + map.words + map.memories.reduce((s, m) => s + m.depth * m.chunks, 0));
    });
  }

  it('a snapshot with one register or one block RAM word changed is caught (the check is not vacuous)', () => {
    const f = loadConfig('apbf_k4_l3');
    const reg = roundTrip(f, {
      cycles: 2000,
      at: 900,
      seed: 3,
      tamper: (s) => {
        const r = s.registers.find((x) => x.name === 'ctl_requests_lo')!;
        r.value = (BigInt('0x' + r.value) ^ 1n).toString(16);
      },
    });
    expect(reg.mismatches.some((m) => m.engine === 'B' && m.port === 'ctl_requests')).toBe(true);
    const mem = roundTrip(f, {
      cycles: 2000,
      at: 900,
      seed: 3,
      tamper: (s) => {
        for (const m of s.memories) m.words = m.words.map(() => '0');
      },
    });
    expect(mem.mismatchCount + mem.memoryMismatches).toBeGreaterThan(0);
  });

  it('the control design is lint-clean (verilator --lint-only -Wall) and named <core>_ctl', async () => {
    for (const name of ['apbf_k4_l3', 'ibf_imp_k4_m4', 'pbf2_t256_k3_2k']) {
      const d = loadConfig(name).controlDesign();
      expect(d.name).toBe(`${name}_ctl`);
      const r = await lint(d);
      expect(r.code, r.output).toBe(0);
    }
  });

  it('a snapshot file that does not fit the design is refused naming the field', () => {
    const f = loadConfig('tbf_k4_w256');
    const d = f.controlDesign();
    const map = controlMap(d);
    const good = roundTrip(f, { cycles: 400, at: 200, seed: 1 }).snapshot;
    expect(() => checkSnapshot(good, map, d.name, 's.json')).not.toThrow();
    const bad = (change: (s: typeof good) => void): (() => void) => {
      const s = structuredClone(good);
      change(s);
      return () => checkSnapshot(s, map, d.name, 's.json');
    };
    expect(bad((s) => (s.design = 'other'))).toThrow(/^s\.json: field 'design'/);
    expect(bad((s) => s.registers.pop())).toThrow(/field 'registers'/);
    expect(bad((s) => (s.registers[0]!.value = 'zz'))).toThrow(/field 'registers\[0\]\.value'/);
    expect(bad((s) => (s.memories[0]!.words = s.memories[0]!.words.slice(1)))).toThrow(/field 'memories\[0\]\.words'/);
    expect(bad((s) => (s.memories[0]!.words[3] = 'f'.repeat(64)))).toThrow(/field 'memories\[0\]\.words\[3\]'/);
  });

  it('bloomforge snapshot: the round trip from the command line, the snapshot file, errors with exit 2', async () => {
    const dir = tmpDir('bf-snap-');
    const file = path.join(dir, 'snap.json');
    const bin = path.resolve('bin/bloomforge.mjs');
    const ok = await execa(
      process.execPath,
      [bin, 'snapshot', 'tbf_k4_w256', '--cycles', '800', '--at', '300', '-o', file, '--json'],
      {
        reject: false,
      },
    );
    expect(ok.exitCode, ok.stderr).toBe(0);
    const out = JSON.parse(ok.stdout) as { mismatches: number; memoryMismatches: number; requests: number };
    expect(out.mismatches).toBe(0);
    expect(out.memoryMismatches).toBe(0);
    expect(out.requests).toBeGreaterThan(100);
    const d = loadConfig('tbf_k4_w256').controlDesign();
    expect(() => checkSnapshot(JSON.parse(fs.readFileSync(file, 'utf8')), controlMap(d), d.name, file)).not.toThrow();
    const bad = await execa(process.execPath, [bin, 'snapshot', 'tbf_k4_w256', '--cycles', '800', '--at', '900'], {
      reject: false,
    });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr.trim()).toBe('bloomforge: --at (900) must be below --cycles (800)');
    const gen = await execa(
      process.execPath,
      [bin, 'generate', 'tbf_k4_w256', '--control', 'bus', '-o', path.join(dir, 'g')],
      {
        reject: false,
      },
    );
    expect(gen.exitCode).toBe(2);
    expect(gen.stderr).toMatch(/--control must be one of none, regs/);
    expect(fs.existsSync(path.join(dir, 'g'))).toBe(false);
  });
});

describe('snapshot into the reference model (APBF, APBBF, TBF, BTBF)', () => {
  for (const name of [
    'apbf_k4_l3',
    'apbbf_k2_l3_b512_4',
    'apbf_k4_l3_mix',
    'tbf_k4_w256',
    'btbf_k4_w512_b16',
    'btbf_k3_w256_b8_decision',
  ]) {
    it(`${name}: drained, snapshot through the port, loaded into a model that answers the rest: 0 mismatches`, () => {
      const r = modelRoundTrip(loadConfig(name), { before: 4000, after: 4000, seed: 9 });
      expect(r.mismatches).toEqual([]);
      expect(r.memory.count, r.memory.mismatches.join('\n')).toBe(0);
      expect(r.memory.checked).toBeGreaterThan(0);
      expect(r.modelDivergences).toBe(0);
      // The stream crossed shifts (wraps of T+) before and after: the base index, the spares, T+ matter.
      expect(r.agingBefore).toBeGreaterThan(0);
      expect(r.agingAfter).toBeGreaterThan(0);
      // The port's counters: every request, and every shift or wrap (= the model's aging events).
      expect(r.counted.requests).toBe(BigInt(r.counted.sent));
      expect(r.counted.events).toBe(BigInt(r.modelEvents));
    });
  }

  it('a wrong base index (write_mask rotated by one bank) is caught', () => {
    const f = loadConfig('apbf_k4_l3');
    const r = modelRoundTrip(f, {
      before: 4000,
      after: 2000,
      seed: 9,
      tamper: (s) => {
        const w = s.registers.find((x) => x.name === 'write_mask')!;
        const width = w.width;
        const v = BigInt('0x' + w.value);
        const rot = ((v << 1n) | (v >> BigInt(width - 1))) & ((1n << BigInt(width)) - 1n);
        w.value = rot.toString(16);
      },
    });
    expect(r.mismatchCount + r.memory.count).toBeGreaterThan(0);
  });

  it('a wrong T+ in a TBF snapshot is caught', () => {
    const r = modelRoundTrip(loadConfig('tbf_k4_w256'), {
      before: 4000,
      after: 2000,
      seed: 9,
      tamper: (s) => {
        const t = s.registers.find((x) => x.name === 'tplus')!;
        t.value = (BigInt('0x' + t.value) ^ 2n).toString(16);
      },
    });
    expect(r.mismatchCount).toBeGreaterThan(0);
  });

  it('families without a loader say so (the hardware restore works for every family)', () => {
    expect(loadConfig('stable_d2_k3').family.fromSnapshot).toBeUndefined();
    expect(() => modelRoundTrip(loadConfig('stable_d2_k3'), { before: 50, after: 50, seed: 1 })).toThrow(
      /stable: no model loader for snapshots/,
    );
  });
});
