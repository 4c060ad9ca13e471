import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLES, h3Banks } from '../../src/examples/index.js';
import { emitVerilog } from '../../src/emit/verilog.js';
import { manifestJson } from '../../src/emit/manifest.js';
import { VERSION } from '../../src/version.js';
import { resolveConfig } from '../../src/config/resolve.js';
import type { Design } from '../../src/ir/types.js';
import { lint, synthIce40 } from '../helpers/tools.js';

const ALL: Record<string, () => Design> = { ...EXAMPLES, h3_banks8: () => h3Banks() };
const GOLDEN = path.resolve('generated/examples');

describe('Verilog back-end', () => {
  it('is deterministic: two builds give the same bytes', () => {
    for (const make of Object.values(ALL)) expect(emitVerilog(make())).toBe(emitVerilog(make()));
  });

  it('matches the checked-in golden files (regenerate with `make generate`)', () => {
    for (const make of Object.values(EXAMPLES)) {
      const d = make();
      const v = path.join(GOLDEN, `${d.name}.v`);
      expect(fs.existsSync(v), `${v} missing: run make generate`).toBe(true);
      expect(emitVerilog(d), `${d.name}.v differs from a fresh generation`).toBe(fs.readFileSync(v, 'utf8'));
      expect(manifestJson(d)).toBe(fs.readFileSync(path.join(GOLDEN, `${d.name}.manifest.json`), 'utf8'));
    }
    const expected = Object.values(EXAMPLES).flatMap((m) => [`${m().name}.v`, `${m().name}.manifest.json`]);
    expect(fs.readdirSync(GOLDEN).sort()).toEqual(expected.sort());
  });

  it('writes each H3 output bit over the span of its row only (a 512-bit key built in minutes when every row was a full-width AND)', async () => {
    const f = resolveConfig({ name: 'k512', filter: 'apbf', k: 4, l: 3, sliceBits: 4096, keyBits: 512, seed: 1 });
    const v = emitVerilog(f.design());
    const terms = [...v.matchAll(/\^\((\w+)\[(\d+):(\d+)\] & (\d+)'h[0-9a-f]+\)/g)];
    expect(terms.length).toBeGreaterThan(100);
    for (const [, , hi, lo, w] of terms) {
      expect(Number(w)).toBe(Number(hi) - Number(lo) + 1);
      expect(Number(w)).toBeLessThanOrEqual(64);
    }
    expect(v).not.toMatch(/& 512'h/);
    const r = await lint(f.design());
    expect(r.output).toBe('');
  });

  it('version constant matches package.json', () => {
    expect(JSON.parse(fs.readFileSync('package.json', 'utf8')).version).toBe(VERSION);
  });

  for (const [name, make] of Object.entries(ALL)) {
    it(`${name}: 0 warnings under verilator --lint-only -Wall`, async () => {
      const r = await lint(make());
      expect(r.output).toBe('');
      expect(r.code).toBe(0);
    });
  }

  it('lint catches a real problem (the check is not vacuous)', async () => {
    const { execa } = await import('execa');
    const { tmpDir } = await import('../helpers/tools.js');
    const dir = tmpDir('bf-lintneg-');
    const f = path.join(dir, 'counter.v');
    fs.writeFileSync(f, emitVerilog(EXAMPLES.counter!()).replace("8'h1;", "9'h1;"));
    const r = await execa('verilator', ['--lint-only', '-Wall', f], { reject: false, all: true });
    expect(r.exitCode).not.toBe(0);
    expect(r.all).toMatch(/WIDTH/);
  });

  // Yosys takes seconds per design: the memories, the widest arithmetic and the hash units.
  const SYNTH: [string, number][] = [
    ['counter', 0],
    ['fifo', 1],
    ['ram1r1w', 1],
    ['h3_k128', 0],
    ['arith_w65', 0],
  ];
  for (const [name, brams] of SYNTH) {
    it(`${name}: Yosys synth_ice40 + check -assert: 0 problems, no latches, ${brams} SB_RAM40_4K`, async () => {
      const r = await synthIce40(ALL[name]!());
      expect(r.code, r.output.slice(-2000)).toBe(0);
      expect(r.problems).toBe(0);
      expect(Object.keys(r.cells).filter((c) => /LATCH/i.test(c))).toEqual([]);
      expect(r.cells.SB_RAM40_4K ?? 0).toBe(brams);
    });
  }

  it('a memory with "undefined" read-during-write needs no bypass logic on iCE40', async () => {
    // 8 banks of 256 x 16: the BRAMs plus the pipeline, and no write-delay registers per bank.
    const r = await synthIce40(h3Banks());
    expect(r.code, r.output.slice(-2000)).toBe(0);
    expect(r.problems).toBe(0);
    expect(Object.keys(r.cells).filter((c) => /LATCH/i.test(c))).toEqual([]);
    expect(r.cells.SB_RAM40_4K).toBe(8);
    const ffs = Object.entries(r.cells)
      .filter(([k]) => k.startsWith('SB_DFF'))
      .reduce((s, [, n]) => s + n, 0);
    // registers the DSL asked for: per bank 12 hash + 8 addr + 4 bit + valid + insert, plus 2
    expect(ffs).toBeLessThanOrEqual(8 * 26 + 2);
  });
});
