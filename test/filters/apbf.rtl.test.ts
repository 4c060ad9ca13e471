/** Lint and synthesis cleanliness of every preset, and its golden Verilog under generated/. */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { filterManifest } from '../../src/cli/filters.js';
import { emitVerilog } from '../../src/emit/verilog.js';
import { buildApbf } from '../../src/families/apbf/rtl.js';
import { deriveApbf } from '../../src/families/apbf/config.js';
import { loadPreset, presetNamesOf } from '../../src/presets/index.js';
import { ice40BlockRamEstimate } from '../../src/synth/index.js';
import { lint, tmpDir } from '../helpers/tools.js';

const SYNTH: Record<string, string> = { 'ice40-hx8k': 'synth_ice40', ecp5: 'synth_ecp5', xilinx: 'synth_xilinx' };
const BRAM: Record<string, RegExp> = { 'ice40-hx8k': /^SB_RAM40_4K$/, ecp5: /^DP16KD$/, xilinx: /^RAMB(18|36)E1$/ };

describe('presets: golden files, lint, synthesis', () => {
  for (const name of presetNamesOf('apbf', 'apbbf')) {
    const c = deriveApbf(loadPreset(name));
    const d = buildApbf(c);

    it(`${name}: matches generated/${name}.v and its manifest (regenerate with make generate)`, () => {
      expect(emitVerilog(d)).toBe(fs.readFileSync(path.resolve('generated', `${name}.v`), 'utf8'));
      const manifest = JSON.parse(fs.readFileSync(path.resolve('generated', `${name}.manifest.json`), 'utf8'));
      expect(manifest).toEqual(JSON.parse(JSON.stringify(filterManifest(c, d))));
      expect(manifest.parameters).toMatchObject({
        k: c.k,
        l: c.l,
        g: c.generation,
        w: c.l * c.generation,
        s: c.k * c.generation,
      });
    });

    it(`${name}: 0 warnings under verilator --lint-only -Wall`, async () => {
      const r = await lint(d);
      expect(r.output).toBe('');
      expect(r.code).toBe(0);
    });

    it(`${name}: Yosys ${SYNTH[c.target]}: check -assert passes, no latches, block RAMs inferred`, async () => {
      const dir = tmpDir('bf-synth-');
      const file = path.join(dir, `${name}.v`);
      fs.writeFileSync(file, emitVerilog(d));
      const r = await execa(
        'yosys',
        ['-p', `read_verilog ${file}; ${SYNTH[c.target]} -top ${name}; check -assert; stat`],
        {
          reject: false,
          all: true,
        },
      );
      fs.rmSync(dir, { recursive: true, force: true });
      const out = r.all ?? '';
      expect(r.exitCode, out.slice(-3000)).toBe(0);
      const stat = out.slice(out.lastIndexOf('Number of cells:'));
      const cells = Object.fromEntries([...stat.matchAll(/^\s+(\S+)\s+(\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
      expect(Object.keys(cells).filter((k) => /LATCH|\$dlatch/i.test(k))).toEqual([]);
      const brams = Object.entries(cells)
        .filter(([k]) => BRAM[c.target]!.test(k))
        .reduce((s, [, n]) => s + n, 0);
      expect(brams).toBeGreaterThan(0);
      if (c.target === 'ice40-hx8k') {
        // One SB_RAM40_4K per bank column, within the 32 of an HX8K, and as many as the estimate
        // that `synth` uses to refuse designs that cannot fit.
        expect(brams).toBe((c.k + c.l + c.spares) * c.bitsPerBlock);
        expect(brams).toBe(ice40BlockRamEstimate(d));
        expect(brams).toBeLessThanOrEqual(32);
        expect(cells.SB_LUT4 ?? 0).toBeLessThanOrEqual(7680);
      }
    });
  }
});
