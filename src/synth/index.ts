/**
 * Synthesis flow: Yosys for every target, nextpnr-ice40 place-and-route (N seeds) for iCE40.
 * Results are cached in .cache/synth/ under a hash of the Verilog, the tool versions and options.
 *
 * - ice40-hx8k / ice40-up5k: `synth_ice40` → nextpnr-ice40 per seed with `--report`; LUT4,
 *   flip-flops, SB_RAM40_4K, fmax per seed and the median, the critical path of the median seed.
 * - ecp5 / xilinx: `synth_ecp5` / `synth_xilinx` resource counts only (no place-and-route here).
 * A design that does not fit the part fails with an error naming the resource.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { emitVerilog } from '../emit/verilog.js';
import type { Design } from '../ir/types.js';
import { CACHE_DIR } from '../../sim/cosim/verilator.js';
import { requireTool, toolVersion } from '../../sim/cosim/tools.js';
import { ice40Blocks } from './bram.js';

export type Target = 'ice40-hx8k' | 'ice40-up5k' | 'ecp5' | 'xilinx';
export const TARGETS: readonly Target[] = ['ice40-hx8k', 'ice40-up5k', 'ecp5', 'xilinx'];

/** Device capacities used for the fit check (iCE40 data sheets). */
const CAPACITY: Partial<Record<Target, { luts: number; brams: number; ffs: number }>> = {
  'ice40-hx8k': { luts: 7680, brams: 32, ffs: 7680 },
  'ice40-up5k': { luts: 5280, brams: 30, ffs: 5280 },
};

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

export interface CriticalPath {
  from: string;
  to: string;
  cells: string[];
  delayNs: number;
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
  note: string;
  tools: string[];
  cached: boolean;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
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

const RESOURCES: Record<Target, { lut: RegExp; ff: RegExp; bram: RegExp; dsp: RegExp; synth: string }> = {
  'ice40-hx8k': { lut: /^SB_LUT4$/, ff: /^SB_DFF/, bram: /^SB_RAM40_4K$/, dsp: /^SB_MAC16$/, synth: 'synth_ice40' },
  'ice40-up5k': { lut: /^SB_LUT4$/, ff: /^SB_DFF/, bram: /^SB_RAM40_4K$/, dsp: /^SB_MAC16$/, synth: 'synth_ice40' },
  ecp5: { lut: /^LUT4$/, ff: /^TRELLIS_FF$/, bram: /^DP16KD$/, dsp: /^MULT18X18D$/, synth: 'synth_ecp5' },
  xilinx: { lut: /^LUT[1-6]$/, ff: /^FD[A-Z]*$/, bram: /^RAMB(18|36)E1$/, dsp: /^DSP48E1$/, synth: 'synth_xilinx' },
};

interface NextpnrReport {
  fmax?: Record<string, { achieved: number; constraint: number }>;
  critical_paths?: {
    from: string;
    to: string;
    path: { type: string; from: { cell: string }; to: { cell: string }; delay: number }[];
  }[];
}

async function placeAndRoute(
  json: string,
  target: Target,
  seed: number,
  dir: string,
): Promise<{ fmax: number; path: CriticalPath | null }> {
  const report = path.join(dir, `report-${seed}.json`);
  const device = target === 'ice40-hx8k' ? ['--hx8k', '--package', 'ct256'] : ['--up5k', '--package', 'sg48'];
  const r = await execa(
    'nextpnr-ice40',
    [...device, '--json', json, '--freq', '150', '--seed', String(seed), '--timing-allow-fail', '--report', report],
    { reject: false, all: true },
  );
  if (r.exitCode !== 0) {
    const fit = /Unable to place cell|not enough|exceeds|too many/i.exec(r.all ?? '');
    throw new Error(
      `nextpnr-ice40 failed (seed ${seed})${fit ? ' — the design does not fit' : ''}: ${
        (r.all ?? '')
          .split('\n')
          .filter((l) => /ERROR/.test(l))
          .join(' ') || r.all?.slice(-500)
      }`,
    );
  }
  const rep = JSON.parse(fs.readFileSync(report, 'utf8')) as NextpnrReport;
  const clocks = Object.values(rep.fmax ?? {});
  if (clocks.length === 0) throw new Error('nextpnr-ice40 reported no clock');
  const fmax = Math.min(...clocks.map((c) => c.achieved));
  const cp = rep.critical_paths?.[0];
  const pathOut: CriticalPath | null = cp
    ? {
        from: cp.from,
        to: cp.to,
        cells: [...new Set(cp.path.flatMap((s) => [s.from.cell, s.to.cell]))],
        delayNs: cp.path.reduce((s, x) => s + x.delay, 0),
      }
    : null;
  return { fmax, path: pathOut };
}

export interface SynthOptions {
  target: Target;
  seeds?: number;
  /** Skip the cache (always rerun the tools). */
  fresh?: boolean;
}

/**
 * SB_RAM40_4K needed for the design's memories: for each memory the fewest blocks over the four
 * aspect ratios (a lower bound on what Yosys can map, so a design refused here cannot fit).
 */
export function ice40BlockRamEstimate(d: Design): number {
  return d.cells.reduce((s, c) => s + (c.kind === 'memory' ? ice40Blocks(c.width, c.depth) : 0), 0);
}

export async function synthesize(d: Design, opts: SynthOptions): Promise<SynthResult> {
  const target = opts.target;
  const capacity = CAPACITY[target];
  if (capacity) {
    // Fail before spending minutes in Yosys when the memories alone cannot fit.
    const need = ice40BlockRamEstimate(d);
    if (need > capacity.brams) throw new DoesNotFitError('SB_RAM40_4K', need, capacity.brams, target);
  }
  const seeds = opts.seeds ?? 3;
  const ice40 = target.startsWith('ice40');
  await requireTool('yosys');
  if (ice40) await requireTool('nextpnr-ice40');
  const tools = [await toolVersion('yosys', ['-V'])];
  if (ice40) tools.push(await toolVersion('nextpnr-ice40', ['--version']));
  const verilog = emitVerilog(d);
  const key = crypto
    .createHash('sha256')
    .update([verilog, tools.join('|'), target, String(seeds), 'v1'].join('\0'))
    .digest('hex')
    .slice(0, 24);
  const cacheFile = path.join(CACHE_DIR, 'synth', `${d.name}-${key}.json`);
  if (!opts.fresh && fs.existsSync(cacheFile)) {
    return { ...(JSON.parse(fs.readFileSync(cacheFile, 'utf8')) as SynthResult), cached: true };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bf-synth-'));
  try {
    const v = path.join(dir, `${d.name}.v`);
    const json = path.join(dir, `${d.name}.json`);
    fs.writeFileSync(v, verilog);
    const res = RESOURCES[target];
    const script = `read_verilog ${v}; ${res.synth} -top ${d.name}${ice40 ? ` -json ${json}` : ''}; check -assert; stat`;
    const ys = await execa('yosys', ['-p', script], { reject: false, all: true });
    if (ys.exitCode !== 0)
      throw new Error(
        `yosys failed: ${(ys.all ?? '')
          .split('\n')
          .filter((l) => /ERROR/.test(l))
          .join(' ')}`,
      );
    const cells = statCells(ys.all ?? '');
    const result: SynthResult = {
      design: d.name,
      target,
      luts: count(cells, res.lut),
      ffs: count(cells, res.ff),
      brams: count(cells, res.bram),
      dsps: count(cells, res.dsp),
      cells,
      fmaxBySeed: [],
      fmaxMHz: null,
      criticalPath: null,
      note: ice40
        ? `Yosys synth_ice40 + nextpnr-ice40 (${target}), ${seeds} seed(s); fmax is the median`
        : `Yosys ${res.synth} resource counts only: no place-and-route for ${target} here, so no timing`,
      tools,
      cached: false,
    };
    const cap = CAPACITY[target];
    if (cap) {
      if (result.brams > cap.brams) throw new DoesNotFitError('SB_RAM40_4K', result.brams, cap.brams, target);
      if (result.luts > cap.luts) throw new DoesNotFitError('SB_LUT4', result.luts, cap.luts, target);
      if (result.ffs > cap.ffs) throw new DoesNotFitError('flip-flops', result.ffs, cap.ffs, target);
    }
    if (ice40) {
      // Seeds are independent runs (each deterministic): as many at a time as there are cores.
      const runs: { seed: number; fmax: number; path: CriticalPath | null }[] = [];
      const parallel = Math.max(1, Math.min(seeds, os.availableParallelism()));
      for (let first = 1; first <= seeds; first += parallel) {
        const batch = Array.from({ length: Math.min(parallel, seeds - first + 1) }, (_, k) => first + k);
        // Settle every run of the batch before reporting a failure (none outlives the temp dir).
        const done = await Promise.allSettled(batch.map((s) => placeAndRoute(json, target, s, dir)));
        for (const [k, r] of done.entries()) {
          if (r.status === 'rejected') throw r.reason;
          runs.push({ seed: batch[k]!, ...r.value });
        }
      }
      result.fmaxBySeed = runs.map((r) => ({ seed: r.seed, fmaxMHz: r.fmax }));
      result.fmaxMHz = median(runs.map((r) => r.fmax));
      const mid = [...runs].sort((a, b) => a.fmax - b.fmax)[runs.length >> 1]!;
      result.criticalPath = mid.path;
    }
    fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
    fs.writeFileSync(cacheFile, JSON.stringify(result, null, 2));
    return result;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
