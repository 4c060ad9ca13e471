/**
 * Conformance, part 1 (fast): the registry is consistent, and every preset of every registered
 * family has golden Verilog and a manifest under generated/ equal to a fresh generation, byte for
 * byte; the latency the manifest declares is the latency measured in the simulator.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lanePresetNames, presetFilters } from '../../src/config/resolve.js';
import { FAMILIES, presets } from '../../src/families/index.js';
import { CompiledSim } from '../../sim/compiled.js';

const GENERATED = path.resolve('generated');

describe('the family registry', () => {
  it('ids are unique, filter names are claimed once, every family has presets and its bench presets exist', () => {
    const ids = FAMILIES.map((f) => f.id);
    expect(new Set(ids).size).toBe(ids.length);
    const filters = FAMILIES.flatMap((f) => f.filters);
    expect(new Set(filters).size).toBe(filters.length);
    const all = presets();
    expect(new Set(all.map((p) => p.name)).size).toBe(all.length);
    for (const f of FAMILIES) {
      expect(
        all.some((p) => p.family === f),
        `${f.id} has presets`,
      ).toBe(true);
      for (const b of f.benchPresets) expect(all.find((p) => p.name === b)?.family, `${b}`).toBe(f);
    }
  });

  it("the README's family table lists every family, and links the README of every family folder that has one", () => {
    const readme = fs.readFileSync('README.md', 'utf8');
    const table = readme.slice(readme.indexOf('## Filter families'));
    for (const f of FAMILIES) {
      expect(table, `${f.id} has a row`).toContain(`| \`${f.id}\` | ${f.filters.map((x) => `\`${x}\``).join(', ')} |`);
      const own = path.join('src', 'families', f.id, 'README.md');
      if (fs.existsSync(own)) expect(table, `${f.id}: link to ${own}`).toContain(`](${own})`);
    }
  });

  it("every preset's `filter` belongs to the family whose folder holds it", () => {
    for (const p of presets()) {
      const raw = JSON.parse(fs.readFileSync(p.file, 'utf8')) as { filter: string; name: string };
      expect(p.family.filters).toContain(raw.filter);
      expect(raw.name).toBe(p.name);
    }
  });
});

describe('golden files: generated/ mirrors the presets (regenerate with make generate)', () => {
  const filters = presetFilters();
  // Each preset's files, generated once (the per-preset tests generate them a second time).
  const memo = new Map<string, Record<string, string>>();
  const filesOf = (f: (typeof filters)[number]): Record<string, string> => {
    if (!memo.has(f.name)) memo.set(f.name, f.files());
    return memo.get(f.name)!;
  };

  it('generated/ holds exactly the files of the presets, one-lane and N-lane (and examples/)', () => {
    const lanes = lanePresetNames().flatMap((n) => [`${n}.v`, `${n}.manifest.json`]);
    const expected = [...filters.flatMap((f) => Object.keys(filesOf(f))), ...lanes].sort();
    const actual = fs
      .readdirSync(GENERATED)
      .filter((x) => x !== 'examples')
      .sort();
    expect(actual).toEqual(expected);
  });

  for (const f of filters) {
    it(`${f.name} (${f.family.id}): Verilog and manifest equal a fresh generation, and generation is deterministic`, () => {
      const files = filesOf(f);
      for (const [name, text] of Object.entries(files))
        expect(text, `${name} differs from a fresh generation: run make generate`).toBe(
          fs.readFileSync(path.join(GENERATED, name), 'utf8'),
        );
      const again = presetFilters()
        .find((x) => x.name === f.name)!
        .files();
      expect(again).toEqual(files);
    });
  }
});

describe('declared latency equals the measured latency', () => {
  // A request is accepted at one rising edge; out_valid must rise exactly `latency` edges later
  // (out_ready held high) and stay low before.
  for (const f of presetFilters()) {
    it(`${f.name}: out_valid rises manifest.latency cycles after acceptance`, () => {
      const d = f.design();
      const p = f.protocol();
      const query = Object.keys(p.ops).find((op) => p.semantics[op]?.queries && !p.semantics[op]?.inserts)!;
      const sim = new CompiledSim(d);
      for (const q of d.inputs) sim.poke(q.name, 0n);
      sim.poke('out_ready', 1n);
      let guard = 0;
      while (sim.peek('in_ready') !== 1n) {
        sim.step();
        if (++guard > p.maxStallCycles) throw new Error('in_ready never rose');
      }
      sim.poke('in_op', BigInt(p.ops[query]!));
      sim.poke('in_valid', 1n);
      sim.step();
      sim.poke('in_valid', 0n);
      let edges = 1;
      while (sim.peek('out_valid') !== 1n && edges < 100) {
        sim.step();
        edges++;
      }
      expect(edges).toBe(p.latency);
      expect((f.manifest().latency as { cycles: number }).cycles).toBe(p.latency);
    });
  }
});
