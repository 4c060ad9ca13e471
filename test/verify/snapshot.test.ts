/**
 * The control port (src/transforms/control.ts) and snapshots through it (src/verify/snapshot.ts,
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
import { modelRoundTrip, roundTrip } from '../../src/verify/roundtrip.js';
import { checkSnapshot, controlMap, readOccupancy, type Snapshot } from '../../src/verify/snapshot.js';
import { CompiledSim } from '../../sim/compiled.js';
import { FAMILIES } from '../../src/families/index.js';
import { buildAxis } from '../../src/ip/axis.js';
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
    for (const name of ['apbf_k4_l3', 'ibf_imp_k4_m4', 'pbf2_t256_k3_2k', 'counting_k4_w4', 'btbf_k4_w512_b16']) {
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

describe('snapshot into the reference model (every family)', () => {
  // At least one preset per family and per variant with its own loader path (blocked, partitioned,
  // spectral, the decision units, SBF and PBF-2, the key mix). The PBF presets spend their horizon
  // in about 3000 requests: shorter streams, so time steps on both sides of the snapshot.
  const MODEL_PRESETS: [string, number][] = [
    ['apbf_k4_l3', 4000],
    ['apbbf_k2_l3_b512_4', 4000],
    ['apbf_k4_l3_mix', 4000],
    ['tbf_k4_w256', 4000],
    ['btbf_k4_w512_b16', 4000],
    ['btbf_k3_w256_b8_decision', 4000],
    ['a2_k3_b512', 4000],
    ['stable_d2_k3', 4000],
    ['stable_d2_k4_c16', 4000],
    ['bloom_basic_k4_16k', 4000],
    ['bloom_partitioned_k4_4k', 4000],
    ['bloom_blocked_b512_4_16k', 4000],
    ['counting_k4_w4', 4000],
    ['spectral_mi_k4_w4', 4000],
    ['spectral_rm_k4_w4', 4000],
    ['bitwise_l3_w448', 4000],
    ['gbf_k4_c4096', 4000],
    ['gbf_k4_c4096_decision', 4000],
    ['pbf2_t256_k3_2k', 1000],
    ['sbf_t1024_k4_8k', 1000],
    ['ibf_imp_k4_m4', 4000],
    ['ibf_max_k4_m4', 4000],
  ];

  it('every family has a model loader and its presets above cover every family', () => {
    for (const f of FAMILIES) expect(f.fromSnapshot, f.id).toBeTypeOf('function');
    const covered = new Set(MODEL_PRESETS.map(([n]) => loadConfig(n).family.id));
    expect([...covered].sort()).toEqual(FAMILIES.map((f) => f.id).sort());
  });

  for (const [name, n] of MODEL_PRESETS) {
    it(`${name}: drained, snapshot through the port, loaded into a model that answers the rest: 0 mismatches`, () => {
      const f = loadConfig(name);
      const r = modelRoundTrip(f, { before: n, after: n, seed: 9 });
      expect(r.mismatches).toEqual([]);
      expect(r.memory.count, r.memory.mismatches.join('\n')).toBe(0);
      expect(r.memory.checked).toBeGreaterThan(0);
      // The state the loaded model reached is the hardware's, word for word.
      expect(r.memoryAtEnd.count, r.memoryAtEnd.mismatches.join('\n')).toBe(0);
      expect(r.memoryAtEnd.checked).toBe(r.memory.checked);
      expect(r.modelDivergences).toBe(0);
      const ctl = f.family.control(f.config);
      if (ctl.events !== undefined) {
        // The stream crossed aging events (shifts, wraps, swaps, decrement rounds, time steps)
        // before and after: the state that steers them (base index, T+, act, lanes, now) matters.
        expect(r.agingBefore).toBeGreaterThan(0);
        expect(r.agingAfter).toBeGreaterThan(0);
      } else expect(r.modelEvents).toBe(0);
      // The port's counters: every request, and every aging event (= the model's).
      expect(r.counted.requests).toBe(BigInt(r.counted.sent));
      expect(r.counted.events).toBe(BigInt(r.modelEvents));
      // The occupancy estimate: the hardware's = the loaded model's (= the original's), and moving.
      const o = r.occupancy;
      if (ctl.occupancy === undefined) {
        expect(r.counted.occupancy).toBe(0n);
        expect(o.atEnd.loaded).toBeNull();
      } else {
        expect(o.atEnd.loaded).not.toBeNull();
        expect(r.counted.occupancy).toBe(BigInt(o.atEnd.loaded!));
        if (o.atEnd.original !== null) expect(o.atEnd.original).toBe(o.atEnd.loaded);
        if (o.atSnapshot.original !== null) expect(o.atSnapshot.loaded).toBe(o.atSnapshot.original);
        expect(o.atSnapshot.loaded).not.toBe(o.atEnd.loaded);
      }
    });
  }

  // A loader that ignores a block RAM (here: the snapshot's busiest one zeroed) or a register must
  // fail the round trip: the tests above are not vacuous.
  for (const [name, n] of MODEL_PRESETS.filter(([x]) => !x.endsWith('_mix'))) {
    it(`${name}: a snapshot with its busiest block RAM zeroed is caught`, () => {
      let zeroed = '';
      const run = (): ReturnType<typeof modelRoundTrip> =>
        modelRoundTrip(loadConfig(name), {
          before: n,
          after: n,
          seed: 9,
          tamper: (s) => {
            const busy = (m: (typeof s.memories)[number]): number => m.words.filter((w) => w !== '0').length;
            const m = s.memories.reduce((a, b) => (busy(b) > busy(a) ? b : a));
            zeroed = m.name;
            m.words = m.words.map(() => '0');
          },
        });
      let caught: boolean;
      try {
        const r = run();
        caught = r.mismatchCount + r.memoryAtEnd.count > 0;
      } catch (e) {
        caught = /snapshot/.test(String(e));
      }
      expect(caught, zeroed).toBe(true);
    });
  }

  const flip =
    (reg: string, bit = 1n) =>
    (s: Snapshot): void => {
      const r = s.registers.find((x) => x.name === reg)!;
      expect(r, reg).toBeDefined();
      r.value = (BigInt('0x' + r.value) ^ bit).toString(16);
    };
  const REGISTER_TAMPERS: [string, string, (s: Snapshot) => void][] = [
    // A wrong base index (write_mask rotated by one bank).
    [
      'apbf_k4_l3',
      'write_mask',
      (s) => {
        const w = s.registers.find((x) => x.name === 'write_mask')!;
        const v = BigInt('0x' + w.value);
        w.value = (((v << 1n) | (v >> BigInt(w.width - 1))) & ((1n << BigInt(w.width)) - 1n)).toString(16);
      },
    ],
    ['tbf_k4_w256', 'tplus', flip('tplus', 2n)],
    ['btbf_k4_w512_b16', 'bcnt', flip('bcnt', 4n)],
    ['a2_k3_b512', 'count', flip('count', 8n)],
    ['stable_d2_k3', 'rng0', flip('rng0')],
    ['ibf_imp_k4_m4', 'rng0', flip('rng0')],
    ['pbf2_t256_k3_2k', 'now', flip('now', 8n)],
    ['bloom_basic_k4_16k', 'the occupancy count', flip('ctl_occupancy_lo', 4n)],
    ['counting_k4_w4', 'the occupancy count', flip('ctl_occupancy_lo', 4n)],
  ];
  for (const [name, what, tamper] of REGISTER_TAMPERS) {
    it(`${name}: a wrong ${what} in the snapshot is caught`, () => {
      const r = modelRoundTrip(loadConfig(name), { before: 3000, after: 2000, seed: 9, tamper });
      const occ = r.occupancy.atEnd.loaded === null ? 0n : BigInt(r.occupancy.atEnd.loaded);
      expect(r.mismatchCount + r.memoryAtEnd.count + (occ !== r.counted.occupancy ? 1 : 0)).toBeGreaterThan(0);
    });
  }
});

describe("the port's occupancy count (inserts − removes since the last clear)", () => {
  it('counts up and down across the 16-bit halves (carry and borrow), wraps below 0, and a clear sets it to 0', () => {
    const f = loadConfig('counting_k4_w4');
    const p = f.protocol();
    const sim = new CompiledSim(f.controlDesign());
    sim.reset();
    sim.poke('out_ready', 1);
    let key = 0n;
    const send = (op: string): void => {
      sim.poke('in_valid', 1);
      sim.poke('in_op', p.ops[op]!);
      sim.poke('in_key', key++);
      for (let t = 0; sim.peek('in_ready') !== 1n; t++) {
        expect(t, `${op} not accepted`).toBeLessThan(5000);
        sim.step();
      }
      sim.step();
      sim.poke('in_valid', 0);
    };
    const settle = (): bigint => {
      sim.step(8);
      return readOccupancy(sim);
    };
    expect(settle()).toBe(0n);
    for (let i = 0; i < 5; i++) send('insert');
    send('testAndInsert');
    send('query');
    send('remove');
    expect(settle()).toBe(5n);
    send('clear');
    expect(settle()).toBe(0n);
    send('remove'); // below 0: the high half borrows
    expect(settle()).toBe(0xffffffffn);
    send('remove');
    expect(settle()).toBe(0xfffffffen);
    send('insert');
    send('insert'); // back to 0: the low half carries into the high half
    expect(settle()).toBe(0n);
    send('insert');
    expect(settle()).toBe(1n);
  });
});

describe('the control port on the AXI4-Stream wrapper (--interface axis --control regs)', () => {
  for (const name of ['apbf_k4_l3', 'btbf_k4_w512_b16']) {
    it(`${name}: the wrapped design's snapshot round trip — 0 mismatches, every block RAM word equal`, () => {
      const f = loadConfig(name);
      const r = roundTrip(f, { cycles: 3000, at: 1300, seed: 11, axis: true });
      expect(r.design).toBe(`${name}_ctl_axis`);
      expect(
        r.mismatches,
        JSON.stringify(r.mismatches, (_, v) => (typeof v === 'bigint' ? String(v) : v)),
      ).toEqual([]);
      expect(r.memoryMismatches).toBe(0);
      expect(r.memoryWords).toBeGreaterThan(0);
      expect(r.requests).toBeGreaterThan(500n);
      // The same snapshot format as the native control design's (names, chain, block RAMs).
      expect(() => checkSnapshot(r.snapshot, controlMap(f.controlDesign()), `${name}_ctl`, 's')).not.toThrow();
      // Not vacuous: a zeroed block RAM in the snapshot is caught through the wrapper too.
      const bad = roundTrip(f, {
        cycles: 2000,
        at: 900,
        seed: 3,
        axis: true,
        tamper: (s) => {
          for (const m of s.memories) m.words = m.words.map(() => '0');
        },
      });
      expect(bad.mismatchCount + bad.memoryMismatches).toBeGreaterThan(0);
    });
  }

  it('generate writes the wrapper with the ctl_* ports of the core, the control map in its manifest; lint-clean', async () => {
    const dir = tmpDir('bf-axis-ctl-');
    const bin = path.resolve('bin/bloomforge.mjs');
    const out = path.join(dir, 'g');
    const gen = await execa(
      process.execPath,
      [bin, 'generate', 'apbf_k4_l3', '--interface', 'axis', '--control', 'regs', '-o', out],
      { reject: false },
    );
    expect(gen.exitCode, gen.stderr).toBe(0);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'apbf_k4_l3_ctl_axis.manifest.json'), 'utf8')) as {
      ports: { name: string; direction: string; width: number }[];
      control: { chain: unknown[]; memories: unknown[] };
      axis: unknown;
    };
    const f = loadConfig('apbf_k4_l3');
    const core = f.controlDesign();
    const ctl = [...core.inputs, ...core.outputs]
      .filter((p) => p.name.startsWith('ctl_'))
      .map((p) => ({ name: p.name, width: core.nets[p.net]!.width }));
    expect(ctl.length).toBeGreaterThan(10);
    for (const c of ctl) expect(manifest.ports.find((p) => p.name === c.name)?.width, c.name).toBe(c.width);
    expect(manifest.control).toEqual(JSON.parse(JSON.stringify(controlMap(core))));
    expect(manifest.axis).toBeDefined();
    expect(fs.readFileSync(path.join(out, 'README.md'), 'utf8')).toMatch(/Control port/);
    const r = await lint(buildAxis(f, { control: true }));
    expect(r.code, r.output).toBe(0);
  });
});
