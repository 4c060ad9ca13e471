import { describe, expect, it, vi } from 'vitest';
import { EXAMPLES, h3Banks } from '../../src/examples/index.js';
import { ModuleBuilder } from '../../src/dsl/module.js';
import { CompiledSim, type SimOptions } from '../../sim/compiled.js';
import { outputCone } from '../../sim/codegen.js';
import { runTrace } from '../../sim/engine.js';
import { Interpreter } from '../../sim/interp.js';
import { packRows, randomStimulus, unpackRows } from '../../sim/stimulus.js';
import { biased } from '../helpers/stimulus.js';
import { expectBatchedEqual } from '../helpers/batched.js';
import { compareTraces, formatComparison } from '../../sim/cosim/compare.js';

/** h3Banks stimulus that hits: reset once, then keys from a small pool, inserted and queried. */
function h3Stimulus(d: ReturnType<typeof h3Banks>, cycles: number, seed: number): ReturnType<typeof randomStimulus> {
  return randomStimulus(d, cycles, seed, {
    drive: { rst: (c) => (c === 0 ? 1n : 0n), key: (_c, rng) => BigInt(Math.floor(rng.float() * 48)) },
  });
}

/** The three forms of the cycle loop: WebAssembly, one JavaScript function, JavaScript chunks. */
const FORMS = (chunkChars: number): SimOptions[] => [{ engine: 'wasm' }, { engine: 'js' }, { chunkChars }];

describe('compiled simulator = reference interpreter', () => {
  for (const [name, make] of Object.entries(EXAMPLES)) {
    it(`${name}: every output, every cycle, WebAssembly and JavaScript cycle loops`, () => {
      const d = make();
      const stim = randomStimulus(d, 3000, 11, biased(d));
      const ref = runTrace(new Interpreter(d), stim);
      for (const engine of ['wasm', 'js'] as const) {
        const cmp = compareTraces(
          d,
          [`compiled ${engine}`, 'interp'],
          runTrace(new CompiledSim(d, { engine }), stim),
          ref,
        );
        expect(cmp.count, formatComparison(cmp, d)).toBe(0);
      }
    });
  }

  // Chunk mode (the cycle split into functions, used for large designs) on small designs.
  for (const [name, make] of Object.entries(EXAMPLES)) {
    it(`${name}, split into chunks: every output, every cycle`, () => {
      const d = make();
      const stim = randomStimulus(d, 3000, 12, biased(d));
      const chunked = new CompiledSim(d, { chunkChars: 200 });
      // 1 would be the single-loop form; chunk mode has at least a combinational and a memory function.
      expect(chunked.chunks).toBeGreaterThan(1);
      const cmp = compareTraces(d, ['chunked', 'interp'], runTrace(chunked, stim), runTrace(new Interpreter(d), stim));
      expect(cmp.count, formatComparison(cmp, d)).toBe(0);
    });
  }

  // runBatch writes the outputs from the cycle function itself (which lifts bit-blasted vectors
  // to word operations, sim/lift.ts), not from `peek`.
  for (const [name, make] of Object.entries(EXAMPLES)) {
    it(`${name}: runBatch outputs, WebAssembly, one JavaScript function, JavaScript chunks`, () => {
      const d = make();
      expectBatchedEqual(d, randomStimulus(d, 3000, 13, biased(d)), FORMS(200));
    });
  }

  it('runBatch over many batches = cycle by cycle, in every form', () => {
    const d = h3Banks();
    const ref = expectBatchedEqual(d, h3Stimulus(d, 5000, 9), FORMS(2000));
    expect(new Set(ref.map((row) => row.join())).size).toBeGreaterThan(1);
  });

  it('the benchmark design agrees too, including its memories', () => {
    const d = h3Banks();
    const stim = h3Stimulus(d, 4000, 5);
    for (const engine of ['wasm', 'js'] as const) {
      const c = new CompiledSim(d, { engine });
      const r = new Interpreter(d);
      const cmp = compareTraces(d, ['compiled', 'interp'], runTrace(c, stim), runTrace(r, stim));
      expect(cmp.count).toBe(0);
      for (let a = 0; a < 256; a += 7) expect(c.readMemory('bank3_ram', a)).toBe(r.readMemory('bank3_ram', a));
    }
  });

  it('reading the outputs settles only their cone; any other net read afterwards is still current', () => {
    const d = h3Banks();
    const cone = outputCone(d);
    // The cone runs from the outputs back to state (the block RAMs' read data): part of the design.
    expect(cone.size).toBeGreaterThan(d.outputs.length);
    expect(cone.size).toBeLessThan(d.nets.length / 2);
    const inner = d.nets.filter((n) => !cone.has(n.id) && n.name !== '').map((n) => n.name);
    expect(inner.length).toBeGreaterThan(10);
    const stim = h3Stimulus(d, 300, 4);
    const c = new CompiledSim(d);
    const r = new Interpreter(d);
    let compared = 0;
    stim.forEach((row, cyc) => {
      d.inputs.forEach((p, i) => {
        c.poke(p.name, row[i]!);
        r.poke(p.name, row[i]!);
      });
      for (const p of d.outputs) expect(c.peek(p.name), `cycle ${cyc} ${p.name}`).toBe(r.peek(p.name));
      if (cyc % 10 === 0) {
        for (const name of inner) expect(c.peek(name), `cycle ${cyc} ${name}`).toBe(r.peek(name));
        compared += inner.length;
      }
      c.step();
      r.step();
    });
    expect(compared).toBeGreaterThan(0);
  });

  it('a broken engine is caught: the comparison is not vacuous', () => {
    const d = EXAMPLES.counter!();
    const stim = randomStimulus(d, 100, 1);
    const good = runTrace(new CompiledSim(d), stim);
    const bad = good.map((row, c) => (c === 57 ? [row[0]! ^ 4n, row[1]!] : row));
    const cmp = compareTraces(d, ['good', 'bad'], good, bad);
    expect(cmp.count).toBe(1);
    expect(cmp.mismatches[0]).toMatchObject({ cycle: 57, port: 'count' });
    expect(formatComparison(cmp, d)).toMatch(/cycle 57 port count: good=0x[0-9a-f]+ bad=0x/);
  });
});

describe('compiled simulator behaviour', () => {
  it.each(['wasm', 'js'] as const)('counts, wraps and resets (%s)', (engine) => {
    const s = new CompiledSim(EXAMPLES.counter!(), { engine });
    s.poke('rst', 0);
    s.poke('en', 1);
    s.step(300);
    expect(s.peek('count')).toBe(BigInt(300 % 256));
    s.poke('rst', 1);
    s.step();
    expect(s.peek('count')).toBe(0n);
  });

  it.each(['wasm', 'js'] as const)('memory read-during-write: old data for "old" memories (%s)', (engine) => {
    const s = new CompiledSim(EXAMPLES.ram1r1w!(), { engine });
    const write = (addr: number, data: number, mask = 0xffff) => {
      s.poke('wr_en', 1);
      s.poke('wr_addr', addr);
      s.poke('wr_data', data);
      s.poke('wr_mask', mask);
    };
    write(5, 0x1234);
    s.step();
    write(5, 0xabcd, 0x00ff); // masked write and read of the same address in one cycle
    s.poke('rd_en', 1);
    s.poke('rd_addr', 5);
    s.step();
    expect(s.peek('rd_data')).toBe(0x1234n); // old contents
    s.poke('wr_en', 0);
    s.step();
    expect(s.peek('rd_data')).toBe(0x12cdn); // only the low byte was written
  });

  it('collisions on "undefined" memories are counted and can be poisoned', () => {
    const m = new ModuleBuilder('coll');
    const addr = m.input('addr', 4);
    const mem = m.memory('mem', { width: 8, depth: 16, readDuringWrite: 'undefined' });
    mem.write(addr, 0x5a, 1);
    m.output('q', mem.read(addr, 1));
    const d = m.build();
    for (const opts of FORMS(20)) {
      const plain = new CompiledSim(d, opts);
      const poisoned = new CompiledSim(d, { ...opts, poisonCollisions: true });
      for (const s of [plain, poisoned]) {
        s.poke('addr', 3);
        s.step(2);
      }
      expect(plain.peek('q')).toBe(0x5an);
      expect(poisoned.peek('q')).toBe(0xa5n);
      expect(plain.stats[0]).toBe(2);
    }
  });

  it('BLOOMFORGE_DUMP_JS writes the generated source', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bf-dump-'));
    process.env.BLOOMFORGE_DUMP_JS = dir;
    try {
      new CompiledSim(EXAMPLES.counter!());
    } finally {
      delete process.env.BLOOMFORGE_DUMP_JS;
    }
    const src = fs.readFileSync(path.join(dir, 'counter.run.js'), 'utf8');
    expect(src).toContain('for (let cyc = 0; cyc < n; cyc++)');
    expect(src).not.toMatch(/BigInt|\dn\b/);
    const wasm = fs.readFileSync(path.join(dir, 'counter.run.wasm'));
    expect(WebAssembly.validate(wasm)).toBe(true);
  });

  it('the WebAssembly module is the same bytes for the same design', async () => {
    const { generateWasm, planMemory } = await import('../../sim/wasm.js');
    const { layoutOf } = await import('../../sim/codegen.js');
    const { planLifts } = await import('../../sim/lift.js');
    const bytes = () => {
      const d = h3Banks();
      const L = layoutOf(d);
      return Buffer.from(generateWasm(d, L, planMemory(d, L, 64), { poison: false, lift: planLifts(d) }));
    };
    expect(bytes().equals(bytes())).toBe(true);
  });

  // Random words almost never make a carry ripple through a whole word (a + b = 2^32 - 1 plus a
  // carry in) or a borrow through a zero word: directed operands, every form.
  it.each(FORMS(200))('carries and borrows ripple through whole words (%o)', (opts) => {
    const d = EXAMPLES.arith_w130!();
    const m = (1n << 130n) - 1n;
    const cases: [bigint, bigint][] = [
      [(1n << 64n) - 1n, 1n],
      [(1n << 128n) - 1n, 1n],
      [1n << 64n, 1n],
      [1n << 128n, 1n],
      [m, m],
      [0n, 1n],
    ];
    // Through the cycle loop (runBatch's outputs) and through settle (peek).
    const s = new CompiledSim(d, opts);
    const names = d.inputs.map((p) => p.name);
    const rows = cases.map(([a, b]) => names.map((n) => ({ a, b, s: 0n, sel: 1n, rst: 0n })[n]!));
    const out = new Uint32Array(rows.length * s.layout.outputWords);
    s.runBatch(packRows(d, d.inputs, rows), rows.length, out);
    const got = unpackRows(d, d.outputs, out, rows.length);
    const port = (name: string): number => d.outputs.findIndex((p) => p.name === name);
    cases.forEach(([a, b], k) => {
      expect(got[k]![port('sum')], `${a} + ${b}`).toBe((a + b) & m);
      expect(got[k]![port('diff')], `${a} - ${b}`).toBe((a - b) & m);
    });
    for (const [a, b] of cases) {
      s.poke('a', a);
      s.poke('b', b);
      expect(s.peek('sum'), `${a} + ${b}`).toBe((a + b) & m);
      expect(s.peek('diff'), `${a} - ${b}`).toBe((a - b) & m);
    }
  });

  it.each([
    'WebAssembly.Module(): Compiling function #0 failed: local count too large @+27',
    'WebAssembly.Module(): size 12667661 > maximum function size 7654321 @+51',
  ])("a WebAssembly function V8 refuses as too large runs on the JavaScript loop: '%s'", (message) => {
    // The messages of V8 (node 20) for a design past 50 000 locals and past 7 654 321 bytes of code
    // (found by `bloomforge fuzz --lanes`: an APBF on 8 lanes over 32 shards with 512-bit keys).
    const Real = WebAssembly.Module;
    const refuse = vi.spyOn(WebAssembly, 'Module').mockImplementation(() => {
      throw new WebAssembly.CompileError(message);
    });
    try {
      const d = EXAMPLES.counter!();
      const s = new CompiledSim(d);
      expect(s.engine).toBe('js');
      const stim = randomStimulus(d, 200, 3, biased(d));
      refuse.mockRestore();
      expect(WebAssembly.Module).toBe(Real);
      const wasm = new CompiledSim(d);
      expect(wasm.engine).toBe('wasm');
      const cmp = compareTraces(d, ['fallback', 'wasm'], runTrace(s, stim), runTrace(wasm, stim));
      expect(cmp.count, formatComparison(cmp, d)).toBe(0);
    } finally {
      refuse.mockRestore();
    }
  });

  it('any other WebAssembly compile error is thrown', () => {
    const refuse = vi.spyOn(WebAssembly, 'Module').mockImplementation(() => {
      throw new WebAssembly.CompileError('WebAssembly.Module(): invalid opcode');
    });
    try {
      expect(() => new CompiledSim(EXAMPLES.counter!())).toThrow(/invalid opcode/);
    } finally {
      refuse.mockRestore();
    }
  });

  it('chunkChars with the WebAssembly engine is refused', () => {
    expect(() => new CompiledSim(EXAMPLES.counter!(), { engine: 'wasm', chunkChars: 100 })).toThrow(
      /JavaScript engine only/,
    );
  });
});
