/**
 * `bloomforge lanes generate|verify|throughput`: N-lane, S-shard filters (src/lanes/). `lanes`
 * and `shards` come from the config or from --lanes/--shards (which win).
 */
import type { Command } from 'commander';
import { type LaneFilter } from '../lanes/filter.js';
import { loadLaneConfig } from '../config/lanes.js';
import { EXIT, UsageError } from '../util/errors.js';
import { writeAll } from '../util/files.js';
import { formatComparison } from '../../sim/cosim/compare.js';
import { driveLanes, laneCosim, laneKeySource, type LaneWorkload } from '../verify/lanes.js';
import { grantModel } from '../lanes/grantModel.js';
import { choiceArg, intArg, probabilityArg, targetArg } from './args.js';
import { TARGETS, type Target } from '../device/index.js';
import { measureShardedFp } from '../lanes/analysis.js';
import { benchLanes } from '../bench/lanes.js';
import { machineInfo, machineLine } from '../bench/machine.js';

interface ShapeFlags {
  lanes?: number;
  shards?: number;
  target?: Target;
  merge?: boolean;
}

const shapeOptions = (c: Command): Command =>
  c
    .option('--lanes <n>', 'request lanes: 1, 2, 4 or 8 (default: the config, else 1)', intArg('--lanes', 1, 64))
    .option(
      '--shards <s>',
      'shards, a power of two >= lanes (default: the config, else lanes)',
      intArg('--shards', 1, 1 << 16),
    )
    .option('--target <t>', `one of ${TARGETS.join(', ')} (default: the config's target)`, targetArg)
    .option(
      '--merge',
      'merge identical keys: heads of a cycle with the same key share one shard access (default: the config)',
    )
    .option('--no-merge', "do not merge identical keys (overrides the config's merge)");

const load = (spec: string, o: ShapeFlags): LaneFilter =>
  loadLaneConfig(spec, { lanes: o.lanes, shards: o.shards, target: o.target, merge: o.merge });

export function registerLaneCommands(p: Command): void {
  const lanes = p
    .command('lanes')
    .description('N-lane filters: requests on N lanes per cycle over S shards of the memory');

  shapeOptions(
    lanes
      .command('generate')
      .description('write the N-lane design: <name>.v and <name>.manifest.json (ports, latency, sequence numbers)')
      .argument('<config>', 'preset name or config JSON file')
      .requiredOption('-o, --out <dir>', 'output directory'),
  ).action((spec: string, o: ShapeFlags & { out: string }) => {
    const lf = load(spec, o);
    for (const file of writeAll(o.out, lf.files())) console.log(`wrote ${file}`);
  });

  shapeOptions(
    lanes
      .command('verify')
      .description(
        'random requests on every lane with random ready patterns: lane order, a gap-free linear order (seq), every answer against the sharded model on it, memories, and Verilator every port every cycle',
      )
      .argument('<config>', 'preset name or config JSON file')
      .option('--ops <n>', 'requests per lane', intArg('--ops', 1, 10_000_000), 5000)
      .option('--seed <s>', 'stimulus seed', intArg('--seed', 0, 0xffffffff), 1)
      .option(
        '--backpressure <p>',
        'probability that out<i>_ready is low in a cycle',
        probabilityArg('--backpressure'),
        0.2,
      )
      .option('--idle <p>', 'probability that a lane offers nothing in a cycle', probabilityArg('--idle'), 0.1)
      .option('--no-verilator', 'skip the Verilator comparison'),
  ).action(
    async (
      spec: string,
      o: ShapeFlags & { ops: number; seed: number; backpressure: number; idle: number; verilator: boolean },
    ) => {
      const lf = load(spec, o);
      const r = driveLanes(lf, {
        opsPerLane: o.ops,
        seed: o.seed,
        backpressure: o.backpressure,
        idle: o.idle,
        record: o.verilator,
      });
      console.log(
        `${lf.name}: ${lf.lanes} lanes, ${lf.shards} shards: ${r.ops} ops in ${r.cycles} cycles ` +
          `(${r.opsPerCycle.toFixed(2)} ops/cycle while busy), ${r.agingEvents} aging steps`,
      );
      console.log(
        `  model on the linear order: ${r.mismatchCount} mismatches; memories: ${r.memory?.checked ?? 0} ${r.memory?.unit ?? 'words'}, ${r.memory?.count ?? 0} differ`,
      );
      for (const m of r.mismatches) console.log(`  ${m}`);
      let bad = r.mismatchCount > 0;
      if (o.verilator) {
        const cmp = await laneCosim(lf, r);
        console.log(`  ${formatComparison(cmp, lf.design()).split('\n').join('\n  ')}`);
        bad ||= cmp.count > 0;
      }
      if (bad) process.exitCode = EXIT.checkFailed;
    },
  );

  shapeOptions(
    lanes
      .command('throughput')
      .description(
        'ops per cycle with every lane offered a request every cycle: uniform keys, Zipf 0.8 / 1.0 / 1.2, one hot key; beside the RTL, the grant rule as a cycle model without and with merging identical keys (src/lanes/grantModel.ts)',
      )
      .argument('<config>', 'preset name or config JSON file')
      .option('--ops <n>', 'requests per lane', intArg('--ops', 100, 10_000_000), 20000)
      .option('--seed <s>', 'stimulus seed', intArg('--seed', 0, 0xffffffff), 1)
      .option('--keys <n>', 'distinct keys of the uniform and Zipf streams', intArg('--keys', 1, 1 << 30), 1 << 16)
      .option('--json', 'print JSON'),
  ).action((spec: string, o: ShapeFlags & { ops: number; seed: number; keys: number; json?: boolean }) => {
    const lf = load(spec, o);
    const loads: [string, LaneWorkload][] = [
      ['uniform', 'uniform'],
      ['zipf 0.8', { zipf: 0.8 }],
      ['zipf 1.0', { zipf: 1.0 }],
      ['zipf 1.2', { zipf: 1.2 }],
      ['one hot key', 'hot'],
    ];
    const rows = loads.map(([name, workload]) => {
      const r = driveLanes(lf, {
        opsPerLane: o.ops,
        seed: o.seed,
        workload,
        keys: o.keys,
        mix: { query: 1, insert: 1 },
        throughputOnly: true,
      });
      const model = lf.model();
      const grant = (merge: boolean): number =>
        grantModel({
          lanes: lf.lanes,
          shardOf: (k) => model.shardOf(k),
          workload: laneKeySource(workload, o.keys, lf.base.config.keyBits),
          cycles: o.ops,
          merge,
          seed: o.seed,
        });
      return {
        workload: name,
        opsPerCycle: r.opsPerCycle,
        perLane: r.opsPerCycle / lf.lanes,
        model: grant(false),
        modelMerged: grant(true),
      };
    });
    if (o.json) {
      console.log(
        JSON.stringify({ config: lf.name, lanes: lf.lanes, shards: lf.shards, merge: lf.merge, rows }, null, 2),
      );
      return;
    }
    console.log(
      `${lf.name}: ${lf.lanes} lanes, ${lf.shards} shards, ${o.ops} requests per lane, query:insert 1:1` +
        (lf.merge ? ', the RTL merging identical keys' : ''),
    );
    console.log(`  ${'keys'.padEnd(12)} RTL ops/cycle            grant model   with merging identical keys`);
    for (const r of rows)
      console.log(
        `  ${r.workload.padEnd(12)} ${r.opsPerCycle.toFixed(3)} (${(100 * r.perLane).toFixed(1).padStart(5)} % of ${lf.lanes})`.padEnd(
          39,
        ) +
          `${r.model.toFixed(3)}         ${r.modelMerged.toFixed(3)} (${r.modelMerged >= r.model ? '+' : ''}${(100 * (r.modelMerged / r.model - 1)).toFixed(1)} %)`,
      );
  });

  shapeOptions(
    lanes
      .command('analyze')
      .description(
        "the sharded filter's analysis (fp of S shards beside one lane's; window and slack, which sharding keeps), the shard's sizes, and the false-positive rate measured on the sharded model beside the one-lane model on the same stream",
      )
      .argument('<config>', 'preset name or config JSON file')
      .option(
        '--queries <n>',
        'never-inserted keys queried on each model',
        intArg('--queries', 1000, 100_000_000),
        200_000,
      )
      .option('--seed <s>', 'stream seed', intArg('--seed', 0, 0xffffffff), 1)
      .option(
        '--moment <m>',
        "when the keys are queried: 'shift' (100 just before each aging step) or 'cycle' (one after every insert); default: the analysis's moment, 'shift' for a family aging by ticks, 'cycle' for one with global time (its rate is a mean over the phase of a time step); a filter that does not age is measured at its capacity (n keys inserted, then the queries; one without a capacity after the inserts that bring it to its steady state) and takes no --moment",
        choiceArg('--moment', ['shift', 'cycle'] as const),
      )
      .option('--json', 'print JSON'),
  ).action(
    (spec: string, o: ShapeFlags & { queries: number; seed: number; moment?: 'shift' | 'cycle'; json?: boolean }) => {
      const lf = load(spec, o);
      const a = lf.analyze();
      if (o.moment && lf.aging() === 'none')
        throw new UsageError(
          `lanes analyze: --moment: filter '${lf.base.config.filter}' does not age; it is measured at its capacity (or steady state)`,
        );
      const moment = o.moment ?? (lf.ticks() ? 'shift' : 'cycle');
      const fp = measureShardedFp(lf, { queries: o.queries, seed: o.seed, moment });
      const shard = lf.shard.parameters();
      if (o.json) {
        console.log(
          JSON.stringify(
            { analysis: a.values, lanes: lf.lanes, shards: lf.shards, latency: lf.latency(), shard, fp },
            null,
            2,
          ),
        );
        return;
      }
      console.log(`${spec}: ${a.headline}, ${lf.lanes} lanes over ${lf.shards} shards`);
      for (const line of a.lines) console.log(`  ${line}`);
      const spares = shard.spares !== undefined ? `, spares ${String(shard.spares)}` : '';
      console.log(`  shard: ${lf.shard.describe()}${spares}; latency ${lf.latency()} cycles`);
      const pct = (x: number): string => `${(100 * x).toFixed(4)} %`;
      console.log(
        `  measured fp (${fp.queries} never-inserted keys ${lf.aging() === 'none' ? `after ${fp.inserts} ${lf.measuresSteadyState() ? 'inserted keys (its steady state)' : 'distinct inserted keys (the capacity)'}` : `${moment === 'shift' ? `just before aging steps (every ${lf.period()} inserts)` : 'one after each insert'}, ${fp.inserts} inserts`}): sharded ${pct(fp.sharded)} ± ${pct(fp.halfWidth.sharded)}, one lane ${pct(fp.single)} ± ${pct(fp.halfWidth.single)} (99 %)${lf.ticks() ? `; a shard's share of the ${lf.period()} inserts between aging steps spreads by sqrt(S/${lf.period()}) = ${fp.loadSpread.toFixed(3)}` : ''}`,
      );
    },
  );

  shapeOptions(
    lanes
      .command('bench')
      .description(
        'ops/cycle, fmax and M ops/s of the N-lane design, the TS simulator vs Verilator, and the software filter on every core (one shard per worker thread)',
      )
      .argument('<config>', 'preset name or config JSON file')
      .option('--seeds <n>', 'nextpnr seeds (iCE40)', intArg('--seeds', 1, 20), 3)
      .option('--cycles <n>', 'cycles of the simulator comparison', intArg('--cycles', 1000, 100_000_000), 200_000)
      .option('--ops <n>', 'requests per lane for ops/cycle', intArg('--ops', 100, 10_000_000), 10_000)
      .option('--json', 'print JSON'),
  ).action(async (spec: string, o: ShapeFlags & { seeds: number; cycles: number; ops: number; json?: boolean }) => {
    const lf = load(spec, o);
    const r = await benchLanes(spec, lf, {
      seeds: o.seeds,
      cycles: o.cycles,
      opsPerLane: o.ops,
      onStep: o.json ? undefined : (step) => console.error(`  ${step}…`),
    });
    const machine = await machineInfo();
    if (o.json) {
      console.log(JSON.stringify({ ...r, machine }, null, 2));
      return;
    }
    const M = (x: number | null): string => (x === null ? 'n/a' : (x / 1e6).toFixed(2));
    console.log(`${r.config}: ${r.lanes} lanes, ${r.shards} shards, ${r.target} — ${machineLine(machine)}`);
    console.log(`  ops/cycle (uniform keys, steady state)  ${r.opsPerCycle.toFixed(3)}`);
    const res = r.luts === null ? '' : `; ${r.luts} LUTs, ${r.brams} block RAMs (Yosys)`;
    console.log(
      r.fmaxMHz === null
        ? `  fmax                                     n/a (${r.fmaxNote ?? ''})${res}`
        : `  fmax (median of ${o.seeds} seeds)              ${r.fmaxMHz.toFixed(1)} MHz${res}`,
    );
    console.log(
      `  hardware                                 ${r.hwMopsPerSec === null ? 'n/a' : r.hwMopsPerSec.toFixed(1)} M ops/s`,
    );
    console.log(
      `  TS simulator / Verilator                 ${M(r.sim.tsCyclesPerSec)} / ${M(r.sim.verilatorCyclesPerSec)} M cycles/s (${r.sim.ratio.toFixed(2)}x), outputs ${r.sim.outputsEqual ? 'equal' : 'DIFFER'}`,
    );
    console.log(
      `  software, ${r.threads} threads                     ${M(r.swOpsPerSec)} M test-and-insert/s (${r.swPerThread.map((x) => M(x)).join(' + ')})`,
    );
    console.log(
      `  hardware / software                      ${r.hwOverSw === null ? 'n/a' : r.hwOverSw.toFixed(1) + 'x'}`,
    );
    if (!r.sim.outputsEqual) process.exitCode = EXIT.checkFailed;
  });
}
