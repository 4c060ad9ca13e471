/**
 * `verify` (and its alias `lanes verify`): one random request stream checked against the model,
 * the memories, and Verilator (and Icarus), for a one-lane filter (src/verify/index.ts) or an
 * N-lane one (src/verify/lanes.ts: every lane's order, the linear order, the sharded model).
 */
import type { Command } from 'commander';
import type { Filter } from '../families/filter.js';
import type { LaneFilter } from '../lanes/filter.js';
import { EXIT } from '../util/errors.js';
import { formatComparison, type Comparison } from '../../sim/cosim/compare.js';
import { verifyFilter } from '../verify/index.js';
import { driveLanes, laneCosim } from '../verify/lanes.js';
import type { DriveResult } from '../verify/stream.js';
import { progress } from './progress.js';
import { addVcdOptions, intArg, ratioArg, vcdOptions, writeVcd, type VcdFlags } from './args.js';
import { loadFor, refuseFor, shapeOptions, type CommandWorld, type ShapeFlags } from './shape.js';

export interface VerifyCliOptions extends VcdFlags, ShapeFlags {
  ops?: number;
  seed: number;
  backpressure?: number;
  idle?: number;
  icarus?: boolean;
  verilator: boolean;
  json?: boolean;
}

/** Defaults by kind: one lane, or N lanes (per lane; the lanes' ready patterns are what it checks). */
const DEFAULTS = {
  one: { ops: 100_000, backpressure: 0, idle: 0.05 },
  lanes: { ops: 5000, backpressure: 0.2, idle: 0.1 },
};

const hex = (v: bigint | string): string => (typeof v === 'bigint' ? `0x${v.toString(16)}` : v);

function comparisonJson(c: Comparison): Record<string, unknown> {
  return {
    engines: c.engines,
    cycles: c.cycles,
    count: c.count,
    first: c.mismatches.map((m) => ({
      cycle: m.cycle,
      port: m.port,
      [c.engines[0]]: hex(m.a),
      [c.engines[1]]: hex(m.b),
    })),
  };
}

export function verifyCommand(parent: Command, world: CommandWorld): void {
  const cmd = parent
    .command('verify')
    .description(
      'model vs TS simulator vs Verilator (and Icarus) on one random op stream; memories vs model. N lanes: random requests on every lane with random ready patterns: lane order, a gap-free linear order (seq), every answer against the sharded model on it, memories, and Verilator every port every cycle',
    )
    .argument('<config>', 'preset name or config JSON file')
    .option(
      '--ops <n>',
      `requests per lane (a one-lane filter has one; default ${DEFAULTS.one.ops}, N lanes ${DEFAULTS.lanes.ops})`,
      intArg('--ops', 1, 10_000_000),
    )
    .option('--seed <s>', 'stream seed', intArg('--seed', 0, 0xffffffff), 1)
    .option(
      '--backpressure <p>',
      `probability that out_ready (out<i>_ready) is low in a cycle (default ${DEFAULTS.one.backpressure}, N lanes ${DEFAULTS.lanes.backpressure})`,
      ratioArg('--backpressure'),
    )
    .option(
      '--idle <p>',
      `probability that a lane offers nothing in a cycle (default ${DEFAULTS.one.idle}, N lanes ${DEFAULTS.lanes.idle})`,
      ratioArg('--idle'),
    )
    .option('--icarus', 'also compare against Icarus Verilog (one-lane filters)')
    .option('--no-verilator', 'skip the Verilator comparison')
    .option('--json', 'print JSON');
  addVcdOptions(shapeOptions(cmd)).action(async (spec: string, o: VerifyCliOptions) => {
    const f = loadFor(spec, o, world);
    refuseFor(f, 'lanes', { '--icarus': !!o.icarus });
    const ok = f.kind === 'lanes' ? await verifyLanes(f, o) : await verifyOne(f, o);
    if (!ok) process.exitCode = EXIT.checkFailed;
  });
}

async function verifyOne(f: Filter, o: VerifyCliOptions): Promise<boolean> {
  const vcd = vcdOptions(o);
  const ops = o.ops ?? DEFAULTS.one.ops;
  const bar = progress(`verify ${f.name}`, ops, 'ops', o.json);
  let r;
  try {
    r = await verifyFilter(f, {
      ops,
      seed: o.seed,
      backpressure: o.backpressure ?? DEFAULTS.one.backpressure,
      idle: o.idle ?? DEFAULTS.one.idle,
      verilator: o.verilator,
      icarus: !!o.icarus,
      onProgress: (x) => bar.update(x.accepted),
    });
  } finally {
    bar.stop();
  }
  const d = r.drive;
  if (o.vcd) writeVcd(d.design, d.trace!.stim, d.trace!.cycles, o.vcd, vcd);
  if (o.json) {
    const aging = f.aging() ? { name: f.aging()!.name, events: d.agingEvents } : null;
    console.log(
      JSON.stringify(
        {
          config: f.name,
          family: f.family.id,
          lanes: 1,
          ops: d.ops,
          cycles: d.cycles,
          responses: d.responses,
          finished: d.finished,
          stopReason: d.stopReason,
          aging,
          stallCycles: d.stallCycles,
          responseMismatches: { count: d.mismatchCount, first: d.mismatches },
          memory: r.memory,
          rtl: r.rtl.map(comparisonJson),
          mismatches: r.mismatches,
          ok: r.ok,
          ...(o.vcd ? { vcd: o.vcd } : {}),
        },
        null,
        2,
      ),
    );
  } else printVerifyOne(f, r, o);
  return r.ok;
}

function printVerifyOne(f: Filter, r: Awaited<ReturnType<typeof verifyFilter>>, o: VerifyCliOptions): void {
  const d: DriveResult = r.drive;
  const fields = f
    .protocol()
    .response.map((x) => x.name)
    .join(', ');
  console.log(`model vs simulator: ${d.responses} responses (tag, ${fields}), ${d.mismatchCount} mismatches`);
  for (const x of d.mismatches.slice(0, 5))
    console.log(`  op ${x.op} (${x.kind}): expected ${x.expected}, got ${x.got}`);
  console.log(`memories vs model: ${r.memory.checked} ${r.memory.unit}, ${r.memory.count} mismatches`);
  for (const x of r.memory.mismatches.slice(0, 5)) console.log(`  ${x}`);
  for (const cmp of r.rtl) console.log(formatComparison(cmp, d.design).split('\n').slice(0, 6).join('\n'));
  const a = f.aging();
  console.log(
    `${a ? `${a.name} ${d.agingEvents}, ` : ''}stall cycles ${d.stallCycles}${o.vcd ? `; VCD in ${o.vcd}` : ''}`,
  );
  if (!d.finished) console.log(`verify: stopped: ${d.stopReason}`);
  console.log(
    `verify: ${d.ops} ops, ${d.cycles} cycles, ${r.mismatches} mismatches${d.finished ? '' : ', not finished'}`,
  );
}

async function verifyLanes(lf: LaneFilter, o: VerifyCliOptions): Promise<boolean> {
  const vcd = vcdOptions(o);
  const r = driveLanes(lf, {
    opsPerLane: o.ops ?? DEFAULTS.lanes.ops,
    seed: o.seed,
    backpressure: o.backpressure ?? DEFAULTS.lanes.backpressure,
    idle: o.idle ?? DEFAULTS.lanes.idle,
    record: o.verilator || o.vcd !== undefined,
  });
  if (o.vcd) writeVcd(lf.design(), r.stim!, r.cycles, o.vcd, vcd);
  const cmp = o.verilator ? await laneCosim(lf, r) : null;
  const memoryCount = r.memory?.count ?? 0;
  const mismatches = r.mismatchCount + (cmp?.count ?? 0); // memory mismatches are among the former
  const ok = r.finished && mismatches === 0;
  if (o.json) {
    console.log(
      JSON.stringify(
        {
          config: lf.name,
          family: lf.base.family.id,
          lanes: lf.lanes,
          shards: lf.shards,
          ops: r.ops,
          cycles: r.cycles,
          responses: r.responses,
          opsPerCycle: r.opsPerCycle,
          finished: r.finished,
          agingEvents: r.agingEvents,
          responseMismatches: { count: r.mismatchCount, first: r.mismatches },
          memory: r.memory,
          rtl: cmp ? [comparisonJson(cmp)] : [],
          mismatches,
          ok,
          ...(o.vcd ? { vcd: o.vcd } : {}),
        },
        null,
        2,
      ),
    );
    return ok;
  }
  console.log(
    `${lf.name}: ${lf.lanes} lanes, ${lf.shards} shards: ${r.ops} ops in ${r.cycles} cycles ` +
      `(${r.opsPerCycle.toFixed(2)} ops/cycle while busy), ${r.agingEvents} aging steps`,
  );
  console.log(
    `  model on the linear order: ${r.mismatchCount} mismatches; memories: ${r.memory?.checked ?? 0} ${r.memory?.unit ?? 'words'}, ${memoryCount} differ`,
  );
  for (const m of r.mismatches) console.log(`  ${m}`);
  if (cmp) console.log(`  ${formatComparison(cmp, lf.design()).split('\n').join('\n  ')}`);
  if (!r.finished) console.log(`verify: not finished: ${r.responses} of ${r.ops} answered`);
  if (o.vcd) console.log(`  VCD in ${o.vcd}`);
  return ok;
}
