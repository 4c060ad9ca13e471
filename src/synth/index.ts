/**
 * Synthesis flow: Yosys for every target, nextpnr-ice40 place-and-route (N seeds) for iCE40.
 *
 * - `yosys(d, target)`: the target's synthesis command, `check -assert` (any problem fails it)
 *   and `stat`; LUTs, flip-flops, block RAMs, DSPs, latches. On iCE40 it also keeps the netlist
 *   for place-and-route. The tests use it too.
 * - `synthesize(d, { target, seeds })`: the Yosys result, a fit check against the part (device
 *   facts in src/device), and on iCE40 nextpnr-ice40 per seed with `--report`: fmax per seed and
 *   the median, the critical path of the median seed.
 *
 * Every tool result is cached under .cache/ (src/tools): Yosys under a hash of the Verilog, the
 * Yosys version and the script; each nextpnr seed under a hash of the netlist, the seed, the
 * nextpnr version and its arguments. A cached result is the result the same run would give, so
 * tests and `synth` share the cache.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { bramBlocks, device, yosysScript, type Target } from '../device/index.js';
import { emitVerilog, srcAttr } from '../emit/verilog.js';
import type { Design } from '../ir/types.js';
import { CACHE_DIR, cachedJson, contentKey, requireTool, toolVersion } from '../tools/index.js';
import { median } from '../util/stats.js';
import { HARNESS_PREFIX, ioHarness, portBits } from './harness.js';

export class DoesNotFitError extends Error {
  constructor(
    readonly resource: string,
    readonly used: number,
    readonly available: number,
    target: string,
  ) {
    super(`design does not fit ${target}: ${resource} ${used} used, ${available} available`);
    this.name = 'DoesNotFitError';
  }
}

export interface YosysResult {
  design: string;
  target: Target;
  /** Yosys's exit code: 0 when synthesis and `check -assert` passed. */
  exitCode: number;
  /** Problems `check` reported (null if it did not run). */
  problems: number | null;
  /** When it failed: the ERROR lines, or how it ended and its log's last lines (`failureLines`). */
  errors: string[];
  cells: Record<string, number>;
  luts: number;
  ffs: number;
  brams: number;
  dsps: number;
  /** Latch cells of any kind (there must be none). */
  latches: string[];
  /** iCE40: the key of the cached JSON netlist (for place-and-route). */
  netlist: string | null;
  tool: string;
}

function statCells(log: string): Record<string, number> {
  const stat = log.slice(log.lastIndexOf('Number of cells:'));
  return Object.fromEntries([...stat.matchAll(/^\s+(\S+)\s+(\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
}

function count(cells: Record<string, number>, re: RegExp): number {
  return Object.entries(cells)
    .filter(([k]) => re.test(k))
    .reduce((s, [, n]) => s + n, 0);
}

const netlistFile = (key: string): string => path.join(CACHE_DIR, 'yosys', `${key}.netlist.json`);

/**
 * What a failed Yosys run said: its ERROR lines, or — when it printed none (killed, or a child
 * such as ABC died without Yosys naming it) — how it ended and the last lines of its log.
 */
export function failureLines(log: string, exitCode: number | undefined, signal: string | undefined): string[] {
  if (exitCode === 0) return [];
  const lines = log.split('\n');
  const errors = lines.filter((l) => /ERROR/.test(l));
  if (errors.length) return errors;
  const ended = signal ? `killed by ${signal}` : `exit code ${exitCode ?? 'unknown'}`;
  return [`yosys ended (${ended}) without an ERROR line; the last lines of its log:`, ...lines.slice(-20)];
}

/**
 * The one-line error of a failed nextpnr-ice40 run: whether the design does not fit, and then how
 * many logic cells (a LUT and a flip-flop each) the packer needed of the part's, and the ERROR
 * lines (or the log's tail).
 */
export function pnrFailure(seed: number, log: string): string {
  const fit =
    /Unable to place cell|Unable to find a placement location|Failed to expand region|not enough|exceeds|too many/i.test(
      log,
    );
  const lcs = /ICESTORM_LC:\s*(\d+)\s*\/\s*(\d+)/.exec(log);
  const errors = log
    .split('\n')
    .filter((l) => /ERROR/.test(l))
    .join(' ');
  return (
    `nextpnr-ice40 failed (seed ${seed})${fit ? ' — the design does not fit' : ''}` +
    `${lcs ? ` (${lcs[1]} of ${lcs[2]} logic cells after packing)` : ''}: ${errors || log.slice(-500)}`
  );
}

/** Yosys synthesis, `check -assert` and `stat` for one target (cached when it passes). */
export async function yosys(
  d: Design,
  target: Target,
  opts: { fresh?: boolean; upToLuts?: boolean } = {},
): Promise<{ result: YosysResult; cached: boolean }> {
  await requireTool('yosys');
  const tool = await toolVersion('yosys', ['-V']);
  // A netlist for place-and-route only from a whole synthesis.
  const ice40 = device(target).pnr !== null && !opts.upToLuts;
  const verilog = emitVerilog(d);
  // Run in a scratch folder with fixed file names, so the script is part of the key as run.
  const script = yosysScript(target, 'design.v', d.name, ice40 ? 'netlist.json' : undefined, opts.upToLuts);
  const keyParts = [verilog, tool, script, 'yosys-v1'];
  const key = `${d.name}-${contentKey(keyParts)}`;
  const entry = await cachedJson<YosysResult>(
    'yosys',
    d.name,
    keyParts,
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bf-yosys-'));
      try {
        fs.writeFileSync(path.join(dir, 'design.v'), verilog);
        const r = await execa('yosys', ['-p', script], { cwd: dir, reject: false, all: true });
        const log = r.all ?? '';
        const cells = statCells(log);
        const res = device(target).cells;
        const probs = [...log.matchAll(/Found and reported (\d+) problems/g)].map((m) => Number(m[1]));
        const ok = r.exitCode === 0;
        if (ok && ice40) {
          fs.mkdirSync(path.dirname(netlistFile(key)), { recursive: true });
          fs.copyFileSync(path.join(dir, 'netlist.json'), netlistFile(key));
        }
        return {
          design: d.name,
          target,
          exitCode: r.exitCode ?? -1,
          problems: probs.length ? Math.max(...probs) : null,
          errors: failureLines(log, r.exitCode, r.signal),
          cells,
          luts: count(cells, res.lut),
          ffs: count(cells, res.ff),
          brams: count(cells, res.bram),
          dsps: count(cells, res.dsp),
          latches: Object.keys(cells).filter((k) => /LATCH|\$dlatch|\$_DLATCH/i.test(k)),
          netlist: ok && ice40 ? key : null,
          tool,
        };
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    // A failed run is not cached: the next run tries again rather than repeating a failure.
    { ...opts, keep: (v) => v.exitCode === 0 },
  );
  // A cached entry whose netlist file was removed is recomputed.
  if (entry.cached && entry.value.netlist && !fs.existsSync(netlistFile(entry.value.netlist)))
    return yosys(d, target, { ...opts, fresh: true });
  return { result: entry.value, cached: entry.cached };
}

export interface CriticalPath {
  from: string;
  to: string;
  cells: string[];
  delayNs: number;
}

interface NextpnrReport {
  fmax?: Record<string, { achieved: number; constraint: number }>;
  critical_paths?: {
    from: string;
    to: string;
    path: { type: string; from: { cell: string }; to: { cell: string }; delay: number }[];
  }[];
}

interface PnrResult {
  fmax: number;
  path: CriticalPath | null;
}

/** nextpnr-ice40 on a cached netlist, one seed (cached). */
async function placeAndRoute(
  netlist: string,
  target: Target,
  seed: number,
  fresh: boolean,
): Promise<{ value: PnrResult; cached: boolean }> {
  const tool = await toolVersion('nextpnr-ice40', ['--version']);
  const args = [...device(target).pnr!, '--freq', '150', '--seed', String(seed), '--timing-allow-fail'];
  return cachedJson<PnrResult>(
    'nextpnr',
    netlist,
    [netlist, tool, args.join(' '), 'nextpnr-v1'],
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bf-pnr-'));
      try {
        const report = path.join(dir, 'report.json');
        const r = await execa('nextpnr-ice40', [...args, '--json', netlistFile(netlist), '--report', report], {
          reject: false,
          all: true,
        });
        if (r.exitCode !== 0) throw new Error(pnrFailure(seed, r.all ?? ''));
        const rep = JSON.parse(fs.readFileSync(report, 'utf8')) as NextpnrReport;
        const clocks = Object.values(rep.fmax ?? {});
        if (clocks.length === 0) throw new Error('nextpnr-ice40 reported no clock');
        const cp = rep.critical_paths?.[0];
        return {
          fmax: Math.min(...clocks.map((c) => c.achieved)),
          path: cp
            ? {
                from: cp.from,
                to: cp.to,
                cells: [...new Set(cp.path.flatMap((s) => [s.from.cell, s.to.cell]))],
                delayNs: cp.path.reduce((s, x) => s + x.delay, 0),
              }
            : null,
        };
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    { fresh },
  );
}

export interface SynthResult {
  design: string;
  target: Target;
  luts: number;
  ffs: number;
  brams: number;
  dsps: number;
  cells: Record<string, number>;
  /** fmax per seed (MHz), iCE40 only. */
  fmaxBySeed: { seed: number; fmaxMHz: number }[];
  /** Median over seeds; null without place-and-route. */
  fmaxMHz: number | null;
  criticalPath: CriticalPath | null;
  /**
   * The pin harness the design was placed in (src/synth/harness.ts: more port bits than the
   * package's pins): the input bits it feeds from a shift chain and the output bits it registers
   * and folds into one parity pin; its registers and XOR tree are in the counts. Null: placed as is.
   */
  harness: { inputBits: number; outputBits: number; pins: number } | null;
  note: string;
  tools: string[];
  /** Every tool result came from the cache. */
  cached: boolean;
}

export interface SynthOptions {
  target: Target;
  seeds?: number;
  /** Skip the cache (always rerun the tools). */
  fresh?: boolean;
  /** Called as the steps finish: Yosys, then each place-and-route seed. */
  onProgress?: (done: number, total: number, step: string) => void;
}

/**
 * Block RAM primitives the design's memories need on the target: for each memory the fewest
 * blocks over the primitive's modes (a lower bound on what Yosys can map, so a design refused
 * here cannot fit).
 */
export function blockRamEstimate(d: Design, target: Target): number {
  return d.cells.reduce((s, c) => s + (c.kind === 'memory' ? bramBlocks(target, c.width, c.depth) : 0), 0);
}

export async function synthesize(d: Design, opts: SynthOptions): Promise<SynthResult> {
  const { target } = opts;
  const dev = device(target);
  const cap = dev.capacity;
  // Fail before spending minutes in Yosys when the memories alone cannot fit.
  const need = blockRamEstimate(d, target);
  if (cap && need > cap.brams) throw new DoesNotFitError(dev.bram.primitive, need, cap.brams, target);
  const seeds = opts.seeds ?? 3;
  const ice40 = dev.pnr !== null;
  // A design with more port bits than the package has pins is placed in a harness.
  const harness = ice40 && dev.pins !== null ? ioHarness(d, dev.pins) : null;
  const inner = d;
  if (harness) d = harness.design;
  if (ice40) await requireTool('nextpnr-ice40');
  const steps = 1 + (ice40 ? seeds : 0);
  opts.onProgress?.(0, steps, 'yosys');
  const ys = await yosys(d, target, { fresh: opts.fresh });
  const y = ys.result;
  opts.onProgress?.(1, steps, ice40 ? 'nextpnr' : 'done');
  if (y.exitCode !== 0) throw new Error(`yosys failed: ${y.errors.join(' ')}`);
  if (cap) {
    if (y.brams > cap.brams) throw new DoesNotFitError(dev.bram.primitive, y.brams, cap.brams, target);
    if (y.luts > cap.luts) throw new DoesNotFitError('SB_LUT4', y.luts, cap.luts, target);
    if (y.ffs > cap.ffs) throw new DoesNotFitError('flip-flops', y.ffs, cap.ffs, target);
  }
  const result: SynthResult = {
    design: inner.name,
    target,
    luts: y.luts,
    ffs: y.ffs,
    brams: y.brams,
    dsps: y.dsps,
    cells: y.cells,
    fmaxBySeed: [],
    fmaxMHz: null,
    criticalPath: null,
    harness: harness ? { inputBits: harness.inputBits, outputBits: harness.outputBits, pins: dev.pins! } : null,
    note:
      (ice40
        ? `Yosys ${dev.synth} + nextpnr-ice40 (${target}), ${seeds} seed(s); fmax is the median`
        : `Yosys ${dev.synth} resource counts only: no place-and-route for ${target} here, so no timing`) +
      (harness
        ? `; ${portBits(inner)} port bits for ${dev.pins} pins, so placed in a pin harness (src/synth/harness.ts): ` +
          `${harness.inputBits} input bits from a shift chain, ${harness.outputBits} output bits registered into a ` +
          `parity pin, its ${harness.inputBits + harness.outputBits + 1} flip-flops and XOR tree counted above`
        : ''),
    tools: [y.tool],
    cached: ys.cached,
  };
  if (ice40) {
    result.tools.push(await toolVersion('nextpnr-ice40', ['--version']));
    // Seeds are independent runs (each deterministic): as many at a time as there are cores.
    const runs: { seed: number; fmax: number; path: CriticalPath | null }[] = [];
    const parallel = Math.max(1, Math.min(seeds, os.availableParallelism()));
    for (let first = 1; first <= seeds; first += parallel) {
      const batch = Array.from({ length: Math.min(parallel, seeds - first + 1) }, (_, k) => first + k);
      // Settle every run of the batch before reporting a failure.
      const done = await Promise.allSettled(batch.map((s) => placeAndRoute(y.netlist!, target, s, !!opts.fresh)));
      for (const [k, r] of done.entries()) {
        if (r.status === 'rejected') throw r.reason;
        runs.push({ seed: batch[k]!, ...r.value.value });
        result.cached &&= r.value.cached;
        opts.onProgress?.(1 + runs.length, steps, `seed ${batch[k]}`);
      }
    }
    result.fmaxBySeed = runs.map((r) => ({ seed: r.seed, fmaxMHz: r.fmax }));
    result.fmaxMHz = median(runs.map((r) => r.fmax));
    result.criticalPath = [...runs].sort((a, b) => a.fmax - b.fmax)[runs.length >> 1]!.path;
  }
  return result;
}

/**
 * The DSL lines a critical path passes through: each cell on it matched to the design net it was
 * made from (Yosys names mapped cells after the net they drive: `add_0_SB_LUT4_O` comes from net
 * `add_0`), and that net's source location. Cells named by the tools alone ($abc$…) have none.
 */
export function criticalPathSources(
  d: Design,
  cp: CriticalPath,
  harness: SynthResult['harness'] = null,
): { cell: string; net: string | null; src: string | null }[] {
  const nets = [...d.nets].sort((a, b) => b.name.length - a.name.length);
  return cp.cells.map((placed) => {
    // In a pin harness the design is the instance `dut` (its nets named after that prefix).
    const cell = harness && placed.startsWith(HARNESS_PREFIX) ? placed.slice(HARNESS_PREFIX.length) : placed;
    const n = nets.find((x) => cell === x.name || cell.startsWith(`${x.name}_`) || cell.startsWith(`${x.name}$`));
    const src = n ? (/src = "([^"]+)"/.exec(srcAttr(n.loc))?.[1] ?? null) : null;
    return { cell, net: n?.name ?? null, src };
  });
}
