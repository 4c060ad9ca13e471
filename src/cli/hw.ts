/** CLI commands for the hardware numbers: synth (resources, fmax) and bench (throughput). */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { benchFilter, formatBenchTable } from '../bench/hw.js';
import { loadLaneConfig } from '../config/lanes.js';
import { loadConfig } from '../config/resolve.js';
import { TARGETS, type Target } from '../device/index.js';
import type { Design } from '../ir/types.js';
import { criticalPathSources, DoesNotFitError, synthesize, type SynthResult } from '../synth/index.js';
import { UsageError } from '../util/errors.js';
import { intArg, targetArg } from './args.js';
import { progress } from './progress.js';

function seedsArg(v: string): number {
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 20)
    throw new InvalidArgumentError('--seeds must be a whole number in 1..20');
  return Number(v);
}

export function printSynth(r: SynthResult, d: Design): void {
  console.log(
    `${r.design} on ${r.target}${r.cached ? ' (cached)' : ''}: ${r.luts} LUTs, ${r.ffs} FFs, ${r.brams} block RAMs, ${r.dsps} DSPs`,
  );
  if (r.fmaxMHz !== null) {
    console.log(
      `  fmax ${r.fmaxMHz.toFixed(1)} MHz (median of ${r.fmaxBySeed.map((s) => s.fmaxMHz.toFixed(1)).join(', ')})`,
    );
    if (r.criticalPath) {
      console.log(
        `  critical path ${r.criticalPath.delayNs.toFixed(2)} ns: ${r.criticalPath.from} -> ${r.criticalPath.to}`,
      );
      console.log('    through (cell: DSL line of the net it was made from)');
      for (const x of criticalPathSources(d, r.criticalPath, r.harness))
        console.log(`      ${x.cell}${x.src ? `: ${x.src}${x.net !== x.cell ? ` (${x.net})` : ''}` : ''}`);
    }
  }
  console.log(`  ${r.note}`);
}

export function registerHwCommands(p: Command): void {
  p.command('synth')
    .description('synthesize a filter config: resources, and fmax on iCE40 (nextpnr, N seeds)')
    .argument('<config>', 'preset name or config JSON file')
    .option('--target <t>', `one of ${TARGETS.join(', ')} (default: the config's target)`, targetArg)
    .option('--seeds <n>', 'nextpnr seeds (iCE40)', seedsArg, 3)
    .option('--fresh', 'rerun the tools instead of using cached results')
    .option('--control <c>', 'none | regs: synthesize the design with the control port (generate --control)', 'none')
    .option('--lanes <n>', 'synthesize the N-lane design (bloomforge lanes): 1, 2, 4 or 8', intArg('--lanes', 1, 64))
    .option('--shards <s>', 'shards of the N-lane design (default: lanes)', intArg('--shards', 1, 1 << 16))
    .option('--merge', 'the N-lane design merging identical keys (default: the config)')
    .option('--no-merge', "the N-lane design without merging (overrides the config's merge)")
    .option('--json', 'print JSON')
    .action(
      async (
        spec: string,
        o: {
          target?: Target;
          seeds: number;
          fresh?: boolean;
          control: string;
          lanes?: number;
          shards?: number;
          merge?: boolean;
          json?: boolean;
        },
      ) => {
        if (o.control !== 'none' && o.control !== 'regs') throw new UsageError('--control must be one of none, regs');
        const laneShape = o.lanes !== undefined || o.shards !== undefined || o.merge !== undefined;
        if (laneShape && o.control !== 'none') throw new UsageError('--control applies to one-lane designs only');
        const lf = laneShape
          ? loadLaneConfig(spec, { lanes: o.lanes, shards: o.shards, target: o.target, merge: o.merge })
          : null;
        const f = lf ? lf.base : loadConfig(spec);
        const design = lf ? lf.design() : o.control === 'regs' ? f.controlDesign() : f.design();
        try {
          const bar = progress(`synth ${f.name}`, 1 + o.seeds, 'steps', o.json);
          let r;
          try {
            r = await synthesize(design, {
              target: o.target ?? f.config.target,
              seeds: o.seeds,
              fresh: o.fresh,
              onProgress: (done, total, step) => bar.update(done, step),
            });
          } finally {
            bar.stop();
          }
          const sources = r.criticalPath ? criticalPathSources(design, r.criticalPath, r.harness) : null;
          if (o.json) console.log(JSON.stringify({ ...r, criticalPathSources: sources }, null, 2));
          else printSynth(r, design);
        } catch (e) {
          if (e instanceof DoesNotFitError) throw new UsageError(e.message);
          // A place-and-route failure is a result, said in one line (exit 1), not a stack trace.
          if (e instanceof Error && /^nextpnr-ice40 failed/.test(e.message)) {
            console.error(`bloomforge: ${e.message}`);
            process.exitCode = 1;
            return;
          }
          throw e;
        }
      },
    );

  p.command('bench')
    .description('hardware vs software: ops/cycle, fmax, Mops/s, simulator vs Verilator, software ops/s')
    .argument('<config>', 'preset name or config JSON file')
    .option('--seeds <n>', 'nextpnr seeds (iCE40)', seedsArg, 3)
    .option('--cycles <n>', 'simulator benchmark cycles', intArg('--cycles', 1000), 1_000_000)
    .option('--json', 'print JSON')
    .action(async (spec: string, o: { seeds: number; cycles: number; json?: boolean }) => {
      const f = loadConfig(spec);
      const bar = progress(`bench ${f.name}`, 4, 'steps', o.json);
      let r;
      try {
        r = await benchFilter(f, o.seeds, o.cycles, (done, _total, step) => bar.update(done, step));
      } finally {
        bar.stop();
      }
      if (o.json) console.log(JSON.stringify(r, null, 2));
      else console.log(formatBenchTable([r]));
    });
}
