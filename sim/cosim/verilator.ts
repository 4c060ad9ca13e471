/**
 * Builds emitted Verilog with Verilator (-O3) and the harness in hdl/, cached under a hash of
 * the Verilog, the generated port header, the harness source, the flags and Verilator's version,
 * in `.cache/verilator/` (git-ignored). An entry keeps only the executable (about 0.3 MB for a
 * preset; the objects and generated C++ are deleted after the build), and the least recently used
 * entries are removed once the entries exceed the cache budget: `BLOOMFORGE_VERILATOR_CACHE_MB`,
 * 1024 MB by default — room for thousands of builds, so a fuzz campaign does not evict the
 * builds the test suite needs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { emitVerilog } from '../../src/emit/verilog.js';
import { clockOf, type Design } from '../../src/ir/types.js';
import type { OutputTrace, Stimulus } from '../engine.js';
import { packRows, unpackRows } from '../stimulus.js';
import { CACHE_DIR, contentKey, REPO_ROOT, requireTool, toolVersion } from '../../src/tools/index.js';

const HARNESS = path.join(REPO_ROOT, 'hdl', 'verilator_harness.cpp');

/** C++ that copies words between a row buffer and the model's ports (widths decide the type). */
export function portsHeader(d: Design): string {
  const model = `V${d.name}`;
  const hasClk = d.cells.some((c) => c.kind === 'reg' || c.kind === 'memory');
  const lines = [
    `// generated for design ${d.name}`,
    `#include "${model}.h"`,
    `typedef ${model} Model;`,
    `#define BF_HAS_CLK ${hasClk ? 1 : 0}`,
    `#define BF_CLK ${clockOf(d)}`,
  ];
  const copy = (ports: Design['inputs'], dir: 'in' | 'out'): string[] => {
    const body: string[] = [];
    let k = 0;
    for (const p of ports) {
      const w = d.nets[p.net]!.width;
      const n = Math.ceil(w / 32);
      const f = `m->${p.name}`;
      if (w <= 32) body.push(dir === 'in' ? `  ${f} = r[${k}];` : `  r[${k}] = (uint32_t)${f};`);
      else if (w <= 64) {
        body.push(
          dir === 'in'
            ? `  ${f} = (uint64_t)r[${k}] | ((uint64_t)r[${k + 1}] << 32);`
            : `  r[${k}] = (uint32_t)${f}; r[${k + 1}] = (uint32_t)(${f} >> 32);`,
        );
      } else {
        for (let i = 0; i < n; i++)
          body.push(dir === 'in' ? `  ${f}[${i}] = r[${k + i}];` : `  r[${k + i}] = ${f}[${i}];`);
      }
      k += n;
    }
    return body;
  };
  const words = (ports: Design['inputs']): number =>
    ports.reduce((s, p) => s + Math.ceil(d.nets[p.net]!.width / 32), 0);
  lines.push(`#define BF_IN_WORDS ${words(d.inputs)}`, `#define BF_OUT_WORDS ${words(d.outputs)}`);
  lines.push('static inline void bf_set_inputs(Model* m, const uint32_t* r) {', ...copy(d.inputs, 'in'));
  if (d.inputs.length === 0) lines.push('  (void)m; (void)r;');
  lines.push('}', 'static inline void bf_get_outputs(Model* m, uint32_t* r) {', ...copy(d.outputs, 'out'), '}');
  return lines.join('\n') + '\n';
}

export interface VerilatorBuild {
  exe: string;
  dir: string;
  cached: boolean;
  /** Whether Verilator's runtime library was compiled by this build or reused (not cached). */
  runtime?: 'compiled' | 'reused';
}

const FLAGS = ['-O3', '--x-assign', 'fast', '--x-initial', 'fast', '--noassert'];

/**
 * How a build is made: Verilator's flags and the make variables of the C++ compile. The default
 * is `FLAGS` and `makeFlags()`; `bench:verilator-flags` times others (src/bench/verilatorFlags.ts).
 */
export interface VerilatorVariant {
  readonly flags: readonly string[];
  readonly make: readonly string[];
}

export function defaultVariant(env: NodeJS.ProcessEnv = process.env): VerilatorVariant {
  return { flags: FLAGS, make: makeFlags(env).split(' ') };
}

/** The CPU's instruction-set flags from /proc/cpuinfo, or '' where there is none. */
function cpuFlags(): string {
  try {
    return /^flags\s*:\s*(.*)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? '';
  } catch {
    return '';
  }
}

export async function buildVerilator(
  d: Design,
  opts: { trace?: boolean; variant?: VerilatorVariant } = {},
): Promise<VerilatorBuild> {
  await requireTool('verilator');
  const trace = opts.trace ?? false;
  const verilog = emitVerilog(d);
  const header = portsHeader(d);
  const variant = opts.variant ?? defaultVariant();
  const flags = [...variant.flags, ...(trace ? ['--trace'] : [])];
  const make = variant.make.join(' ');
  const version = await toolVersion('verilator');
  // A build for this CPU (-march=native) is kept per CPU: the model name and, where Linux gives
  // them, the instruction-set flags (a VM may name its CPU only "AMD EPYC").
  const cpu = /native/.test(make) ? [os.cpus()[0]?.model ?? 'unknown CPU', cpuFlags()] : [];
  const key = contentKey([verilog, header, fs.readFileSync(HARNESS, 'utf8'), flags.join(' '), make, version, ...cpu]);
  const root = path.join(CACHE_DIR, 'verilator');
  const dir = path.join(root, `${d.name}-${key}`);
  const exe = path.join(dir, 'obj', 'harness');
  if (fs.existsSync(exe)) {
    const now = new Date();
    fs.utimesSync(dir, now, now);
    return { exe, dir, cached: true };
  }
  // Build in a temporary folder and rename, so an interrupted build never looks cached.
  fs.mkdirSync(root, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(root, `.build-${d.name}-`));
  fs.writeFileSync(path.join(tmp, `${d.name}.v`), verilog);
  fs.writeFileSync(path.join(tmp, 'bf_ports.h'), header);
  const jobs = String(Math.max(1, Math.min(2, os.cpus().length)));
  const obj = path.join(tmp, 'obj');
  const fail = (r: { all?: string }): never => {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw new Error(`verilator build of '${d.name}' failed:\n${r.all ?? ''}`);
  };
  const gen = await execa(
    'verilator',
    [
      '--cc',
      '--exe',
      ...flags,
      '--top-module',
      d.name,
      '--Mdir',
      'obj',
      '-o',
      'harness',
      '-CFLAGS',
      `-I${tmp}`,
      `${d.name}.v`,
      HARNESS,
    ],
    { cwd: tmp, reject: false, all: true },
  );
  if (gen.exitCode !== 0) fail(gen);
  // The C++ compiler's version too: the objects are linked into builds made later.
  const cxx = await toolVersion('g++').catch(() => 'unknown');
  const runtime = path.join(root, `.runtime-${contentKey(['runtime', flags.join(' '), make, version, cxx, ...cpu])}`);
  const reused = reuseRuntime(runtime, obj);
  const r = await execa('make', ['-f', `V${d.name}.mk`, '-j', jobs, ...variant.make], {
    cwd: obj,
    reject: false,
    all: true,
  });
  if (r.exitCode !== 0) fail(r);
  if (!reused) keepRuntime(runtime, obj);
  // Keep the executable only: the objects and the generated C++ are many times its size.
  for (const e of fs.readdirSync(obj))
    if (e !== 'harness') fs.rmSync(path.join(obj, e), { recursive: true, force: true });
  for (const e of fs.readdirSync(tmp)) if (e !== 'obj') fs.rmSync(path.join(tmp, e), { recursive: true, force: true });
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(tmp, dir);
  pruneCache(root, cacheBudgetBytes());
  return { exe, dir, cached: false, runtime: reused ? 'reused' : 'compiled' };
}

/**
 * Verilator's runtime library (verilated.cpp, verilated_threads.cpp, and verilated_vcd_c.cpp with
 * --trace) is the same C++ in every build and about two thirds of a small design's compile time
 * (apbf_k4_l3 at -O0: 3.9 of 5.9 CPU-s, timed by hand with g++ on the generated files).
 * Its objects are kept once per (flags, make flags, Verilator and g++ versions) in
 * `.runtime-<key>` under the cache (a dot folder: pruneCache leaves it alone) and copied into a
 * new build's object folder before make runs; fresh timestamps make make take them as built. The
 * model and the harness are still compiled for every design.
 */
const RUNTIME_OBJECT = /^verilated\w*\.o$/;

function reuseRuntime(runtime: string, obj: string): boolean {
  if (!fs.existsSync(runtime)) return false;
  const now = new Date(Date.now() + 1000);
  for (const e of fs.readdirSync(runtime)) {
    fs.copyFileSync(path.join(runtime, e), path.join(obj, e));
    fs.utimesSync(path.join(obj, e), now, now);
  }
  return true;
}

function keepRuntime(runtime: string, obj: string): void {
  const objects = fs.readdirSync(obj).filter((e) => RUNTIME_OBJECT.test(e));
  if (objects.length === 0 || fs.existsSync(runtime)) return;
  // Written aside and renamed, so a concurrent build never copies half a library.
  const tmp = fs.mkdtempSync(`${runtime}.tmp-`);
  for (const e of objects) fs.copyFileSync(path.join(obj, e), path.join(tmp, e));
  try {
    fs.renameSync(tmp, runtime);
  } catch {
    fs.rmSync(tmp, { recursive: true, force: true }); // another build kept it first
  }
}

/**
 * The C++ optimisation of the build: -O2 (the default: `verify`, co-simulation; the benches build
 * their own variant, src/bench/verilatorFlags.ts), or with
 * BLOOMFORGE_VERILATOR_BUILD=quick -O1 for the model and -O0 for its constructors, which the test
 * suite sets (vitest.config.ts). -O0 throughout compiled fastest but ran the largest preset's
 * 306 000-cycle run 10× slower (`npx bloomforge verify apbbf_k3_l8_b512_4_large --ops 3000
 * --backpressure 0.99 --seed 17` with the build cached: 80 s at -O0, 8 s at -O1, at 2619046 on
 * the 2-core AMD EPYC); -O1 compiles nearly as fast (apbf_k4_l3's model and runtime: 6.7 CPU-s
 * against 5.9 at -O0 and 8.4 at -O2, make timed by hand on the generated files). The generated
 * model is the same; the optimisation level only changes how fast it compiles and runs.
 */
export function makeFlags(env: NodeJS.ProcessEnv = process.env): string {
  const mode = env.BLOOMFORGE_VERILATOR_BUILD ?? '';
  if (mode === '' || mode === 'fast') return 'OPT_FAST=-O2 OPT_GLOBAL=-O2 OPT_SLOW=-O1';
  if (mode === 'quick') return 'OPT_FAST=-O1 OPT_GLOBAL=-O1 OPT_SLOW=-O0';
  throw new Error(`BLOOMFORGE_VERILATOR_BUILD must be 'fast' or 'quick', got '${mode}'`);
}

/** The cache budget in bytes (`BLOOMFORGE_VERILATOR_CACHE_MB`, default 1024). */
export function cacheBudgetBytes(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.BLOOMFORGE_VERILATOR_CACHE_MB;
  if (raw === undefined || raw === '') return 1024 * 2 ** 20;
  const mb = Number(raw);
  if (!Number.isFinite(mb) || mb <= 0)
    throw new Error(`BLOOMFORGE_VERILATOR_CACHE_MB must be a positive number of megabytes, got '${raw}'`);
  return mb * 2 ** 20;
}

function sizeOf(p: string): number {
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.size;
  return fs.readdirSync(p).reduce((sum, e) => sum + sizeOf(path.join(p, e)), 0);
}

/**
 * Removes the least recently used entries (a hit touches its folder) until the rest fit in
 * `budget` bytes; the newest entry always stays. Returns the names removed.
 */
export function pruneCache(root: string, budget: number): string[] {
  const entries = fs
    .readdirSync(root)
    .filter((e) => !e.startsWith('.'))
    .map((e) => ({ e, t: fs.statSync(path.join(root, e)).mtimeMs, size: sizeOf(path.join(root, e)) }))
    .sort((a, b) => b.t - a.t);
  const removed: string[] = [];
  let total = 0;
  entries.forEach(({ e, size }, i) => {
    total += size;
    if (i > 0 && total > budget) {
      fs.rmSync(path.join(root, e), { recursive: true, force: true });
      removed.push(e);
    }
  });
  return removed;
}

function scratch(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Run the stimulus on Verilator; returns every output of every cycle. */
export async function runVerilator(d: Design, stim: Stimulus, opts: { vcd?: string } = {}): Promise<OutputTrace> {
  const out = await runVerilatorPacked(d, packRows(d, d.inputs, stim), stim.length, opts);
  return unpackRows(d, d.outputs, out, stim.length);
}

/**
 * Run `cycles` cycles of a packed stimulus (rows of the inputs' words, as CompiledSim.runBatch
 * takes them) on Verilator; returns the packed outputs of every cycle.
 */
export async function runVerilatorPacked(
  d: Design,
  stim: Uint32Array,
  cycles: number,
  opts: { vcd?: string } = {},
): Promise<Uint32Array> {
  const build = await buildVerilator(d, { trace: opts.vcd !== undefined });
  const dir = scratch('bf-vl-');
  try {
    const stimFile = path.join(dir, 'stim.bin');
    const outFile = path.join(dir, 'out.bin');
    fs.writeFileSync(stimFile, new Uint8Array(stim.buffer, stim.byteOffset, stim.byteLength));
    const args = ['trace', String(cycles), stimFile, outFile, ...(opts.vcd ? [path.resolve(opts.vcd)] : [])];
    await execa(build.exe, args);
    const raw = fs.readFileSync(outFile);
    return new Uint32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export interface VerilatorBench {
  cycles: number;
  seconds: number;
  cyclesPerSec: number;
  /** The packed outputs of every cycle, to check against the TS simulator. */
  out: Uint32Array;
}

/**
 * Time `cycles` cycles of a packed stimulus (loaded before timing) on the build `variant` makes
 * (by default the one every other command uses).
 */
export async function benchVerilator(
  d: Design,
  packedStim: Uint32Array,
  cycles: number,
  variant?: VerilatorVariant,
): Promise<VerilatorBench> {
  const build = await buildVerilator(d, { variant });
  const dir = scratch('bf-vlb-');
  try {
    const stimFile = path.join(dir, 'stim.bin');
    const outFile = path.join(dir, 'out.bin');
    fs.writeFileSync(stimFile, new Uint8Array(packedStim.buffer, packedStim.byteOffset, packedStim.byteLength));
    const r = await execa(build.exe, ['bench', String(cycles), stimFile, outFile]);
    const j = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
      cycles: number;
      seconds: number;
      cyclesPerSec: number;
    };
    const raw = fs.readFileSync(outFile);
    const out = new Uint32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
    return { ...j, out };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
