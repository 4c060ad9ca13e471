/**
 * The fuzz campaign's machinery without hardware: shrinking keeps the failure and reaches the
 * smallest run the predicate fails on; a campaign is reproducible and accounts for every config;
 * a failure found by `runOnce` is one line.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildApbf } from '../../src/families/apbf/rtl.js';
import type { ApbfDerived } from '../../src/families/apbf/types.js';
import { Filter } from '../../src/families/filter.js';
import { caseFile, fuzz, runOnce, shrinkRun, summaryLine, type FuzzRun } from '../../src/fuzz/index.js';

describe('shrinkRun', () => {
  it('finds the fewest ops and the smallest config values that still fail, and drops unneeded fields', async () => {
    const run: FuzzRun = {
      config: { name: 'x', filter: 'apbf', k: 9, l: 7, extra: true, keyBits: 64, seed: 1 },
      ops: 1000,
      seed: 3,
      backpressure: 0.3,
      idle: 0.1,
    };
    let calls = 0;
    // Fails iff at least 37 ops, k >= 3 and keyBits present and >= 8.
    const fails = async (r: FuzzRun): Promise<boolean> => {
      calls++;
      const c = r.config;
      return r.ops >= 37 && typeof c.k === 'number' && c.k >= 3 && typeof c.keyBits === 'number' && c.keyBits >= 8;
    };
    const s = await shrinkRun(run, fails, 400);
    expect(s.ops).toBe(37);
    expect(s.config).toEqual({ name: 'x', filter: 'apbf', k: 3, keyBits: 8 });
    expect(await fails(s)).toBe(true);
    expect(calls).toBeLessThan(120);
  });

  it('stops at its budget and returns a run that fails', async () => {
    const run: FuzzRun = { config: { filter: 'apbf', k: 100 }, ops: 1 << 20, seed: 1, backpressure: 0, idle: 0 };
    const s = await shrinkRun(run, async (r) => r.ops >= 5, 8);
    expect(s.ops).toBeGreaterThanOrEqual(5);
    expect(s.ops).toBeLessThan(run.ops);
  });
});

describe('fuzz campaign (model and simulator)', () => {
  it('accounts for every config, is reproducible, and finds no failure on the registered families', async () => {
    const o = { configs: 8, ops: 300, seed: 5, verilator: false };
    const a = await fuzz(o);
    const b = await fuzz(o);
    expect(a.rejected + a.clean + a.failed).toBe(8);
    expect(a.cases).toEqual([]);
    expect(a.failed).toBe(0);
    expect(b).toEqual(a);
    expect(summaryLine(a)).toBe(`fuzz: 8 configs, ${a.rejected} rejected, ${a.clean} clean, 0 failed`);
  });

  it('reports a refusal with the field it names, and a clean run as ok', async () => {
    const base = { ops: 50, seed: 1, backpressure: 0, idle: 0 };
    expect(
      await runOnce({ ...base, config: { name: 'r', filter: 'apbf', k: 0, l: 3, keyBits: 64, seed: 1 } }, false),
    ).toEqual({
      kind: 'refused',
      field: 'k',
    });
    expect(await runOnce({ ...base, config: { name: 'r', filter: 'nonsense', keyBits: 64, seed: 1 } }, false)).toEqual({
      kind: 'refused',
      field: 'filter',
    });
    const ok = await runOnce(
      { ...base, config: { name: 'r', filter: 'apbf', k: 2, l: 2, sliceBits: 1024, keyBits: 64, seed: 1 } },
      false,
    );
    expect(ok).toEqual({ kind: 'ok' });
  });

  it('writes a case as JSON named by its filter and a hash, with a config name Verilog accepts', () => {
    const f = caseFile({
      config: { name: 'fz3', filter: 'tbf', k: 1 },
      ops: 12,
      seed: 4,
      backpressure: 0.9,
      idle: 0,
      engines: ['model', 'ts-compiled'],
      failure: 'x',
      foundBy: 'bloomforge fuzz',
    });
    expect(f.name).toMatch(/^tbf-[0-9a-f]{10}\.json$/);
    const back = JSON.parse(f.text) as { config: { name: string }; ops: number };
    expect(back.config.name).toMatch(/^fz_tbf_[0-9a-f]{10}$/);
    expect(back.ops).toBe(12);
  });
});

describe('runOnce on a broken pipeline', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('reports a build without write forwarding as a one-line model-vs-simulator failure, and shrinking keeps it', async () => {
    // Every filter of this run is built without forwarding (back-to-back ops on one word go wrong).
    vi.spyOn(Filter.prototype, 'design').mockImplementation(function (this: Filter) {
      return buildApbf(this.config as ApbfDerived, { forwarding: false });
    });
    const run: FuzzRun = {
      config: { name: 'nofwd', filter: 'apbf', k: 2, l: 2, sliceBits: 64, keyBits: 8, seed: 1 },
      ops: 2000,
      seed: 1,
      backpressure: 0,
      idle: 0,
    };
    const out = await runOnce(run, false);
    expect(out.kind).toBe('failed');
    const failure = out.kind === 'failed' ? out.failure : '';
    expect(failure).toMatch(/^(model vs simulator|memories vs model): /);
    expect(failure).not.toContain('\n');
    const s = await shrinkRun(run, async (r) => (await runOnce(r, false)).kind === 'failed', 60);
    expect(s.ops).toBeLessThan(run.ops);
    expect((await runOnce(s, false)).kind).toBe('failed');
  });
});

describe('fuzz --lanes (model and simulator)', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('draws a lane shape for every config, accounts for every one, is reproducible and finds no failure', async () => {
    const shapes: unknown[] = [];
    const o = { configs: 8, ops: 400, seed: 3, verilator: false, lanes: true };
    const a = await fuzz({ ...o, onResult: (_i, run) => shapes.push(run.config.lanes) });
    const b = await fuzz(o);
    expect(b).toEqual(a);
    expect(a.rejected + a.clean + a.failed).toBe(8);
    expect(a.failed).toBe(0);
    expect(a.clean).toBeGreaterThan(0);
    expect(shapes.every((n) => [1, 2, 4, 8].includes(n as number))).toBe(true);
  });

  it('a lane config is refused naming lanes, shards or merge, or runs clean', async () => {
    const base = { ops: 400, seed: 1, backpressure: 0.2, idle: 0.1 };
    const apbf = { name: 'r', filter: 'apbf', k: 2, l: 2, sliceBits: 1024, keyBits: 32, seed: 1 };
    const run = (extra: Record<string, unknown>, cfg: Record<string, unknown> = apbf) =>
      runOnce({ ...base, config: { ...cfg, ...extra } }, false);
    expect(await run({ lanes: 3 })).toEqual({ kind: 'refused', field: 'lanes' });
    expect(await run({ lanes: 4, shards: 2 })).toEqual({ kind: 'refused', field: 'shards' });
    expect(await run({ lanes: 1, merge: true })).toEqual({ kind: 'refused', field: 'merge' });
    expect(await run({ lanes: 2 }, { name: 'a', filter: 'a2', k: 3, bufferBits: 512, keyBits: 32, seed: 1 })).toEqual({
      kind: 'refused',
      field: 'lanes',
    });
    expect(await run({ lanes: 2, shards: 4, merge: true })).toEqual({ kind: 'ok' });
  });

  it('reports a lane design whose shards are built without write forwarding as a one-line failure', async () => {
    vi.spyOn(Filter.prototype, 'design').mockImplementation(function (this: Filter) {
      return buildApbf(this.config as ApbfDerived, { forwarding: false });
    });
    const out = await runOnce(
      {
        config: { name: 'nofwd', filter: 'apbf', k: 2, l: 2, sliceBits: 64, keyBits: 8, seed: 1, lanes: 2, shards: 2 },
        ops: 2000,
        seed: 1,
        backpressure: 0,
        idle: 0,
      },
      false,
    );
    expect(out.kind).toBe('failed');
    const failure = out.kind === 'failed' ? out.failure : '';
    expect(failure).toMatch(/^(lanes vs model|memories vs model): /);
    expect(failure).not.toContain('\n');
  });
});
