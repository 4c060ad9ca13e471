/**
 * The Verilator build cache: least recently used entries go once the entries exceed the budget,
 * the newest always stays, and the budget comes from BLOOMFORGE_VERILATOR_CACHE_MB.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLES } from '../../src/examples/index.js';
import { cosimulate } from '../../sim/cosim/index.js';
import { buildVerilator, cacheBudgetBytes, makeFlags, pruneCache } from '../../sim/cosim/verilator.js';
import { randomStimulus } from '../../sim/stimulus.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A cache root with entries of `kb` KiB each, entry i used i seconds ago. */
function cacheWith(kb: number[]): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bf-cache-'));
  dirs.push(root);
  const now = Date.now() / 1000;
  kb.forEach((size, i) => {
    const dir = path.join(root, `e${i}`);
    fs.mkdirSync(path.join(dir, 'obj'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'obj', 'harness'), Buffer.alloc(size * 1024));
    fs.utimesSync(dir, now - i, now - i);
  });
  fs.mkdirSync(path.join(root, '.build-in-progress'));
  return root;
}

describe('Verilator build cache', () => {
  it('keeps the most recently used entries that fit the budget and removes the rest', () => {
    const root = cacheWith([100, 100, 100, 100, 100]);
    const removed = pruneCache(root, 350 * 1024);
    expect(removed.sort()).toEqual(['e3', 'e4']);
    expect(fs.readdirSync(root).sort()).toEqual(['.build-in-progress', 'e0', 'e1', 'e2']);
  });

  it('never removes the newest entry, even when it alone exceeds the budget', () => {
    const root = cacheWith([500, 10]);
    expect(pruneCache(root, 100 * 1024)).toEqual(['e1']);
    expect(fs.existsSync(path.join(root, 'e0'))).toBe(true);
  });

  it('removes nothing while the entries fit', () => {
    const root = cacheWith([10, 10, 10]);
    expect(pruneCache(root, 1024 * 1024)).toEqual([]);
  });

  it('builds at -O2 by default and at -O1 with BLOOMFORGE_VERILATOR_BUILD=quick (the test suite), refusing other values', () => {
    expect(makeFlags({})).toBe('OPT_FAST=-O2 OPT_GLOBAL=-O2 OPT_SLOW=-O1');
    expect(makeFlags({ BLOOMFORGE_VERILATOR_BUILD: 'quick' })).toBe('OPT_FAST=-O1 OPT_GLOBAL=-O1 OPT_SLOW=-O0');
    expect(() => makeFlags({ BLOOMFORGE_VERILATOR_BUILD: 'turbo' })).toThrow(/BLOOMFORGE_VERILATOR_BUILD must be/);
    expect(process.env.BLOOMFORGE_VERILATOR_BUILD).toBe('quick');
  });

  it("a new build reuses Verilator's runtime objects from an earlier one and still agrees with the TS simulator", async () => {
    const unique = `${process.pid}_${Date.now()}`;
    const first = await buildVerilator({ ...EXAMPLES.counter!(), name: `counter_rt1_${unique}` });
    const d = { ...EXAMPLES.fifo!(), name: `fifo_rt2_${unique}` };
    const second = await buildVerilator(d);
    dirs.push(first.dir, second.dir);
    expect(first.cached || second.cached).toBe(false);
    expect(second.runtime).toBe('reused');
    const stim = randomStimulus(d, 400, 5);
    const r = await cosimulate(d, stim, { interpreter: false });
    expect(r.comparisons.map((c) => c.engines[1])).toEqual(['verilator']);
    expect(r.mismatches).toBe(0);
  });

  it('reads the budget from BLOOMFORGE_VERILATOR_CACHE_MB (1024 MB by default) and refuses nonsense', () => {
    expect(cacheBudgetBytes({})).toBe(1024 * 2 ** 20);
    expect(cacheBudgetBytes({ BLOOMFORGE_VERILATOR_CACHE_MB: '64' })).toBe(64 * 2 ** 20);
    expect(() => cacheBudgetBytes({ BLOOMFORGE_VERILATOR_CACHE_MB: '-1' })).toThrow(/BLOOMFORGE_VERILATOR_CACHE_MB/);
    expect(() => cacheBudgetBytes({ BLOOMFORGE_VERILATOR_CACHE_MB: 'lots' })).toThrow(/BLOOMFORGE_VERILATOR_CACHE_MB/);
  });
});
