/**
 * The dependency rules of `make lint` (.dependency-cruiser.cjs) on small throwaway module trees that
 * mirror the repository's paths: a tree is written to a temporary directory (with a copy of the
 * repository's tsconfig.json) and dependency-cruiser's CLI runs there with the repository's config,
 * as `make lint` runs it. Imports use `.js` specifiers for `.ts` files, as the sources do.
 *
 * Two trees, four runs of the CLI (each run costs about half a second of start-up): DIRTY breaks
 * every rule, in separate corners, and each test looks for its own violation there; CLEAN
 * breaks none.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = path.join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

/**
 * A module tree: each file (path from the repository root) lists the files it imports; a `type:`
 * prefix makes the import type-only (`import type`).
 */
type Tree = Record<string, string[]>;

/** One module's text: it imports and uses each of `imports`. */
function moduleText(file: string, imports: string[]): string {
  const lines: string[] = [];
  const values: string[] = [];
  const types: string[] = [];
  imports.forEach((target, i) => {
    const typeOnly = target.startsWith('type:');
    const to = typeOnly ? target.slice('type:'.length) : target;
    let spec = path.posix.relative(path.posix.dirname(file), to);
    if (!spec.startsWith('.')) spec = `./${spec}`;
    if (file.endsWith('.ts')) spec = spec.replace(/\.ts$/, '.js'); // NodeNext: ./x.js names ./x.ts
    if (typeOnly) {
      lines.push(`import type { T as t${i} } from '${spec}';`);
      types.push(`t${i}`);
    } else {
      lines.push(`import { v as v${i} } from '${spec}';`);
      values.push(`v${i}`);
    }
  });
  const value = values.length > 0 ? `[${values.join(', ')}].length` : '0';
  if (file.endsWith('.mjs')) return [...lines, `export const v = ${value};`, ''].join('\n');
  lines.push('export type T = number;', `export const v: T = ${value};`);
  if (types.length > 0) lines.push(`export type Uses = [${types.join(', ')}];`);
  return [...lines, ''].join('\n');
}

const made: string[] = [];
afterAll(async () => {
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function writeTree(tree: Tree): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bloomforge-deps-'));
  made.push(dir);
  await copyFile(path.join(ROOT, 'tsconfig.json'), path.join(dir, 'tsconfig.json'));
  for (const [file, imports] of Object.entries(tree)) {
    await mkdir(path.join(dir, path.dirname(file)), { recursive: true });
    await writeFile(path.join(dir, file), moduleText(file, imports));
  }
  return dir;
}

/** `depcruise src sim bin` (those of them that exist) in `dir` with the repository's config. */
function depcruise(dir: string, outputType: 'json' | 'err-long') {
  const roots = ['src', 'sim', 'bin'].filter((top) => existsSync(path.join(dir, top)));
  return execa(process.execPath, [DEPCRUISE, ...roots, '--config', CONFIG, '--output-type', outputType], {
    cwd: dir,
    reject: false,
    env: { NO_COLOR: '1' },
  });
}

interface Violation {
  from: string;
  to: string;
  rule: { name: string; severity: string };
  cycle?: { name: string }[];
}
interface Result {
  summary: {
    error: number;
    violations: Violation[];
    totalCruised: number;
    totalDependenciesCruised: number;
    ruleSetUsed: { forbidden: { name: string; comment?: string }[] };
  };
  modules: { source: string; dependencies: { resolved: string; couldNotResolve: boolean }[] }[];
}

async function cruise(tree: Tree): Promise<Result> {
  const r = await depcruise(await writeTree(tree), 'json');
  expect(r.exitCode, r.stderr).toBe(0); // the json reporter exits 0 whatever it finds
  return JSON.parse(r.stdout) as Result;
}

/** Runs once, on first use. */
const once = <T>(make: () => Promise<T>) => {
  let result: Promise<T> | undefined;
  return () => (result ??= make());
};

/** Each rule broken once. */
const DIRTY: Tree = {
  // an import cycle
  'src/util/a.ts': ['src/util/b.ts'],
  'src/util/b.ts': ['src/util/a.ts'],
  // a cycle of type-only imports
  'src/stages/a.ts': ['type:src/stages/b.ts'],
  'src/stages/b.ts': ['type:src/stages/a.ts'],
  // upward imports: L2 -> L6 and L0 -> L10
  'src/stages/c.ts': ['src/families/x/rtl.ts'],
  'src/util/files.ts': ['src/cli/errors.ts'],
  'src/cli/errors.ts': [],
  // from one family folder into another
  'src/families/a/rtl.ts': ['src/families/b/rtl.ts'],
  'src/families/b/rtl.ts': [],
  // in-family rank inversion: config.ts (rank 2) imports rtl.ts (rank 4); rtl.ts -> types.ts is fine
  'src/families/x/config.ts': ['src/families/x/rtl.ts'],
  'src/families/x/rtl.ts': ['src/families/x/types.ts'],
  'src/families/x/types.ts': [],
  // an import from test/
  'src/util/t.ts': ['test/helpers/h.ts'],
  'test/helpers/h.ts': [],
  // modules in no layer: one importing, one imported, one alone
  'src/presets/index.ts': ['src/util/errors.ts'],
  'src/cli/main.ts': ['src/legacy/old.ts'],
  'src/legacy/old.ts': [],
  'src/util/errors.ts': [],
  'src/scratch/alone.ts': [],
};

/** Imports that every rule allows, over all layers (downward and within a layer), ranks and roots. */
const CLEAN: Tree = {
  'bin/main.mjs': ['src/cli/main.ts'],
  'src/cli/main.ts': [
    'src/families/index.ts',
    'src/experiments/run.ts',
    'src/bench/scripts/bench.ts',
    'type:src/ir/types.ts',
  ],
  'src/bench/scripts/bench.ts': ['src/experiments/run.ts', 'sim/compiled.ts'],
  'src/experiments/run.ts': ['src/bench/table.ts', 'src/config/load.ts', 'src/families/x/experiments.ts'],
  'src/bench/table.ts': ['src/config/load.ts'],
  'src/config/load.ts': ['src/families/index.ts'],
  'src/families/index.ts': ['src/families/x/index.ts', 'src/families/y/index.ts', 'type:src/families/types.ts'],
  'src/families/x/index.ts': ['src/families/x/rtl.ts', 'src/families/x/planner.ts', 'src/families/x/experiments.ts'],
  'src/families/x/experiments.ts': ['src/families/x/rtl.ts', 'src/verify/x.ts', 'src/families/x/summary.ts'],
  'src/families/x/rtl.ts': ['src/families/x/sampler.ts', 'src/families/x/config.ts', 'src/dsl/module.ts'],
  'src/families/x/sampler.ts': ['src/families/x/planner.ts'],
  'src/families/x/planner.ts': ['src/families/x/config.ts', 'src/families/x/summary.ts'],
  'src/families/x/config.ts': ['src/families/x/params.ts', 'src/families/x/model.ts'],
  'src/families/x/params.ts': ['type:src/families/x/types.ts', 'src/stages/clear.ts'],
  'src/families/x/summary.ts': ['src/families/x/model.ts', 'src/analysis/bloom.ts'],
  'src/families/x/model.ts': ['src/families/x/types.ts', 'src/ir/h3.ts'],
  'src/families/x/types.ts': ['type:src/families/types.ts', 'src/device/index.ts'],
  'src/families/y/index.ts': ['src/families/y/rtl.ts'],
  'src/families/y/rtl.ts': ['src/families/y/types.ts', 'src/stages/clear.ts'],
  'src/families/y/types.ts': ['type:src/families/types.ts'],
  'src/verify/x.ts': ['sim/compiled.ts', 'sim/cosim/verilator.ts', 'type:src/families/types.ts'],
  'src/families/types.ts': ['type:src/ir/types.ts', 'src/util/rng.ts'],
  'src/stages/clear.ts': ['src/dsl/module.ts', 'src/analysis/bloom.ts'],
  'src/analysis/bloom.ts': ['src/util/rng.ts'],
  'src/dsl/module.ts': ['type:src/ir/types.ts'],
  'src/synth/index.ts': ['sim/cosim/verilator.ts', 'src/emit/verilog.ts'],
  'src/emit/verilog.ts': ['type:src/ir/types.ts', 'src/version.ts'],
  'sim/compiled.ts': ['type:src/ir/types.ts'],
  'sim/cosim/verilator.ts': ['src/tools/index.ts', 'src/device/index.ts', 'sim/compiled.ts'],
  'src/ir/h3.ts': ['src/util/rng.ts'],
  'src/ir/types.ts': ['src/util/errors.ts'],
  'src/util/rng.ts': ['src/util/errors.ts'],
  'src/util/errors.ts': [],
  'src/version.ts': [],
  'src/device/index.ts': ['src/util/errors.ts'],
  'src/tools/index.ts': ['src/util/errors.ts'],
};

const dirty = once(() => cruise(DIRTY));
const clean = once(() => cruise(CLEAN));

const edges = (result: Result) =>
  result.summary.violations
    .filter((v) => v.rule.name !== 'no-circular')
    .map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)
    .sort();

/** The cycles reported, each as its sorted module list. */
const cycles = (result: Result) => {
  const members = result.summary.violations
    .filter((v) => v.rule.name === 'no-circular')
    .map((v) => [...(v.cycle ?? []).map((m) => m.name)].sort().join(' '));
  return [...new Set(members)].sort();
};

describe.concurrent('dependency rules (.dependency-cruiser.cjs)', () => {
  it('pass a tree whose imports all go downward or sideways, and see every edge', async () => {
    const result = await clean();
    expect(result.summary.violations).toEqual([]);
    expect(result.summary.error).toBe(0);
    // Every written import is an edge, resolved (`./x.js` to ./x.ts, type-only imports included).
    const written = Object.values(CLEAN)
      .flat()
      .map((target) => target.replace(/^type:/, ''));
    expect(result.summary.totalDependenciesCruised).toBe(written.length);
    const resolved = result.modules.flatMap((m) => m.dependencies.filter((d) => !d.couldNotResolve));
    expect(resolved.map((d) => d.resolved).sort()).toEqual(written.sort());
  });

  it('report an import cycle', async () => {
    expect(cycles(await dirty())).toContain('src/util/a.ts src/util/b.ts');
  });

  it('report a cycle made of type-only imports', async () => {
    expect(cycles(await dirty())).toContain('src/stages/a.ts src/stages/b.ts');
  });

  it('report an upward import, naming both layers', async () => {
    const result = await dirty();
    expect(edges(result)).toContain('upward-L2-L6 (src/stages/): src/stages/c.ts → src/families/x/rtl.ts');
    expect(edges(result)).toContain('upward-L0-L10 (src/util/): src/util/files.ts → src/cli/errors.ts');
    const rule = result.summary.ruleSetUsed.forbidden.find((r) => r.name === 'upward-L2-L6 (src/stages/)');
    expect(rule?.comment).toMatch(/^upward import: L2 src\/stages\/ may not import L6 family folders/);
  });

  it('report an import from one family folder into another', async () => {
    expect(edges(await dirty())).toContain('no-cross-family: src/families/a/rtl.ts → src/families/b/rtl.ts');
  });

  it('report an in-family rank inversion (config.ts importing rtl.ts)', async () => {
    expect(edges(await dirty())).toContain('family-rank-2-4: src/families/x/config.ts → src/families/x/rtl.ts');
  });

  it('report every module that is in no layer: importing, imported or alone', async () => {
    const result = await dirty();
    expect(edges(result)).toContain('in-no-layer: src/presets/index.ts → src/util/errors.ts');
    expect(edges(result)).toContain('to-in-no-layer: src/cli/main.ts → src/legacy/old.ts');
    expect(edges(result)).toContain('in-no-layer-orphan: src/scratch/alone.ts → src/scratch/alone.ts');
  });

  it('report an import from test/', async () => {
    expect(edges(await dirty())).toContain('not-to-test: src/util/t.ts → test/helpers/h.ts');
  });

  it('report nothing else in that tree, all as errors', async () => {
    const result = await dirty();
    expect(cycles(result)).toEqual(['src/stages/a.ts src/stages/b.ts', 'src/util/a.ts src/util/b.ts']);
    expect(edges(result)).toEqual([
      'family-rank-2-4: src/families/x/config.ts → src/families/x/rtl.ts',
      'in-no-layer-orphan: src/scratch/alone.ts → src/scratch/alone.ts',
      'in-no-layer: src/presets/index.ts → src/util/errors.ts',
      'no-cross-family: src/families/a/rtl.ts → src/families/b/rtl.ts',
      'not-to-test: src/util/t.ts → test/helpers/h.ts',
      'to-in-no-layer: src/cli/main.ts → src/legacy/old.ts',
      'upward-L0-L10 (src/util/): src/util/files.ts → src/cli/errors.ts',
      'upward-L2-L6 (src/stages/): src/stages/c.ts → src/families/x/rtl.ts',
    ]);
    expect(result.summary.violations.every((v) => v.rule.severity === 'error')).toBe(true);
    expect(result.summary.error).toBe(result.summary.violations.length);
  });

  it("make lint's command exits non-zero on a violation and 0 on a clean tree", async () => {
    const [bad, good] = await Promise.all([writeTree(DIRTY), writeTree(CLEAN)]);
    const [onBad, onGood] = await Promise.all([depcruise(bad, 'err-long'), depcruise(good, 'err-long')]);
    const text = stripVTControlCharacters(onBad.stdout);
    expect(onBad.exitCode).not.toBe(0);
    expect(text).toContain('error family-rank-2-4: src/families/x/config.ts → src/families/x/rtl.ts');
    expect(text).toContain('upward import: L2 src/stages/ may not import L6 family folders');
    expect(onGood.exitCode, onGood.stdout).toBe(0);
  });
});
