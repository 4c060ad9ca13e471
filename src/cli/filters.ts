/** CLI commands on filter configs of any family: presets, generate, simulate, verify. */
import fs from 'node:fs';
import type { Command } from 'commander';
import { loadConfig, presetFilters } from '../config/resolve.js';
import { lanePresets } from '../config/lanes.js';
import { FAMILIES } from '../families/index.js';
import type { Filter } from '../families/filter.js';
import type { DriveHooks } from '../families/types.js';
import { EXIT, UsageError } from '../util/errors.js';
import { progress } from './progress.js';
import { inputFile, writeAll } from '../util/files.js';
import { CONTROLS, INTERFACES, ipFiles, type Control, type Interface } from '../ip/package.js';
import { formatComparison, type Comparison } from '../../sim/cosim/compare.js';
import { verifyFilter } from '../verify/index.js';
import { driveAsync, keysOf, type DriveResult } from '../verify/stream.js';
import { namedWorkload } from '../model/workloads.js';
import {
  addContributed,
  addVcdOptions,
  contributedValues,
  intArg,
  optionFlag,
  optionKey,
  ratioArg,
  vcdOptions,
  writeVcd,
  type VcdFlags,
} from './args.js';

/** The hooks of the family options given to `simulate`; an option of another family is refused. */
function simulateHooks(f: Filter, values: Record<string, string | undefined>): DriveHooks | null {
  const own = new Set((f.family.simulate?.options ?? []).map((o) => optionKey(o.flags)));
  for (const fam of FAMILIES)
    for (const o of fam.simulate?.options ?? []) {
      const key = optionKey(o.flags);
      if (values[key] !== undefined && !own.has(key))
        throw new UsageError(
          `${optionFlag(o.flags)} applies to ${fam.filters.join(', ')} configs, not to ${f.config.filter}`,
        );
    }
  return f.family.simulate?.hooks(f.config, values) ?? null;
}

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

function agingText(f: Filter, r: DriveResult): string {
  const a = f.aging();
  return a ? `${a.name} ${r.agingEvents}, ` : '';
}

export function registerFilterCommands(p: Command): void {
  p.command('presets')
    .description('list the preset filter configs of every family')
    .action(() => {
      for (const f of presetFilters())
        console.log(
          `${f.name.padEnd(26)} ${f.config.filter} ${f.describe()} w=${f.window() ?? '-'} target=${f.config.target}`,
        );
      for (const f of lanePresets())
        console.log(
          `${f.name.padEnd(26)} ${f.base.config.filter} ${f.base.describe()} w=${f.base.window() ?? '-'} ` +
            `target=${f.base.config.target} lanes=${f.lanes} shards=${f.shards} (bloomforge lanes …)`,
        );
    });

  p.command('generate')
    .description(
      'write a filter as IP: <top>.v, <top>.manifest.json, a FuseSoC <top>.core, instantiation templates ' +
        '(<top>_inst.v, <top>_inst.vhd) and README.md with the port table',
    )
    .argument('<config>', 'preset name or config JSON file')
    .requiredOption('-o, --out <dir>', 'output directory (required)')
    .option('--interface <i>', `${INTERFACES.join(' | ')}: the core's own ports, or an AXI4-Stream wrapper`, 'native')
    .option(
      '--control <c>',
      `${CONTROLS.join(' | ')}: regs adds the control port (counters, freeze, register scan chain, block RAM access: snapshots)`,
      'none',
    )
    .action((spec: string, o: { out: string; interface: string; control: string }) => {
      if (!INTERFACES.includes(o.interface as Interface))
        throw new UsageError(`--interface must be one of ${INTERFACES.join(', ')}`);
      if (!CONTROLS.includes(o.control as Control))
        throw new UsageError(`--control must be one of ${CONTROLS.join(', ')}`);
      const f = loadConfig(spec);
      for (const file of writeAll(o.out, ipFiles(f, o.interface as Interface, o.control as Control)))
        console.log(`wrote ${file}`);
    });

  const simulate = p
    .command('simulate')
    .description(
      'run a workload through the compiled simulator (test-and-insert per key, or insert and query) and measure it',
    )
    .argument('<config>', 'preset name or config JSON file')
    .option('--ops <n>', 'operations', intArg('--ops', 1, 100_000_000), 100_000)
    .option('--seed <s>', 'workload seed', intArg('--seed', 0, 0xffffffff), 1)
    .option(
      '--workload <w>',
      'uniform | zipf | distinct | sequential | tuple | gray | prefix | FILE (one key per line)',
      'uniform',
    )
    .option(
      '--universe <n>',
      'keys of the uniform and zipf workloads (default 4 · window, or 4 · capacity)',
      intArg('--universe', 1, 1 << 30),
    )
    .option('--json', 'print JSON');
  addVcdOptions(simulate);
  const simKeys = addContributed(
    simulate,
    FAMILIES.flatMap((f) => f.simulate?.options ?? []),
  );
  simulate.action(async (spec: string, o: SimulateOptions & Record<string, unknown>) => {
    const f = loadConfig(spec);
    const vcd = vcdOptions(o);
    const hooks = simulateHooks(f, contributedValues(o, simKeys));
    const ops = f.protocol().ops;
    const mix = f.membershipMix();
    const window = f.window();
    const workload = namedWorkload(o.workload, f.config.keyBits, o.universe ?? 4 * keysOf(f), (file) =>
      fs.readFileSync(inputFile(file, '--workload'), 'utf8'),
    );
    const bar = progress(`simulate ${f.name}`, o.ops, 'ops', o.json);
    let r;
    try {
      r = await driveAsync(f, {
        ops: o.ops,
        seed: o.seed,
        mix,
        workload,
        exactWindow: window !== null,
        record: o.vcd !== undefined,
        hooks: hooks ?? undefined,
        onProgress: (x) => bar.update(x.accepted),
      });
    } finally {
      bar.stop();
    }
    if (o.vcd) writeVcd(r.design, r.trace!.stim, r.trace!.cycles, o.vcd, vcd);
    const w = r.window;
    const span = r.lastAccept - r.firstAccept + 1;
    const out = {
      config: f.name,
      family: f.family.id,
      workload: o.workload,
      ops: r.ops,
      cycles: r.cycles,
      opsPerCycle: span > 0 ? r.ops / span : 0,
      stallCycles: r.stallCycles,
      finished: r.finished,
      ...(f.aging() ? { [f.aging()!.name]: r.agingEvents } : {}),
      inWindow: w?.inWindow ?? 0,
      falseNegatives: w?.falseNegatives ?? 0,
      slackTested: w?.slackTested ?? 0,
      slackHits: w?.slackHits ?? 0,
      negativesTested: w?.negatives ?? 0,
      falsePositives: w?.falsePositives ?? 0,
      falsePositiveRate: w && w.negatives ? w.falsePositives / w.negatives : 0,
      modelMismatches: r.mismatchCount,
      ...(hooks?.report() ?? {}),
    };
    if (o.json) console.log(JSON.stringify(out, null, 2));
    else {
      console.log(
        `${f.name}: ${out.ops} ${'testAndInsert' in ops ? 'test-and-insert' : 'insert/query'} ops (${o.workload}) in ${out.cycles} cycles, ${out.opsPerCycle.toFixed(3)} ops/cycle` +
          (f.aging() ? `, ${r.agingEvents} ${f.aging()!.name}` : ''),
      );
      console.log(`  in window ${out.inWindow}, false negatives ${out.falseNegatives}`);
      if (f.slack() > 0) console.log(`  in slack ${out.slackTested}, reported ${out.slackHits}`);
      console.log(
        `  outside window${f.slack() > 0 ? '+slack' : ''} ${out.negativesTested}, false positives ${out.falsePositives} (rate ${out.falsePositiveRate.toFixed(5)})`,
      );
      for (const line of hooks?.lines() ?? []) console.log(line);
      console.log(`  model mismatches ${out.modelMismatches}${o.vcd ? `; VCD in ${o.vcd}` : ''}`);
      if (!r.finished) console.log(`simulate: stopped: ${r.stopReason}`);
    }
    if (!r.finished || out.falseNegatives > 0 || out.modelMismatches > 0) process.exitCode = EXIT.checkFailed;
  });

  const verify = p
    .command('verify')
    .description('model vs TS simulator vs Verilator (and Icarus) on one random op stream; memories vs model')
    .argument('<config>', 'preset name or config JSON file')
    .option('--ops <n>', 'operations', intArg('--ops', 1, 10_000_000), 100_000)
    .option('--seed <s>', 'stream seed', intArg('--seed', 0, 0xffffffff), 1)
    .option('--backpressure <p>', 'probability that out_ready is low in a cycle', ratioArg('--backpressure'), 0)
    .option('--idle <p>', 'probability that in_valid is low in a cycle', ratioArg('--idle'), 0.05)
    .option('--icarus', 'also compare against Icarus Verilog')
    .option('--json', 'print JSON');
  addVcdOptions(verify).action(async (spec: string, o: VerifyCliOptions) => {
    const f = loadConfig(spec);
    const vcd = vcdOptions(o);
    const bar = progress(`verify ${f.name}`, o.ops, 'ops', o.json);
    let r;
    try {
      r = await verifyFilter(f, {
        ops: o.ops,
        seed: o.seed,
        backpressure: o.backpressure,
        idle: o.idle,
        icarus: !!o.icarus,
        onProgress: (x) => bar.update(x.accepted),
      });
    } finally {
      bar.stop();
    }
    const d = r.drive;
    if (o.vcd) writeVcd(d.design, d.trace!.stim, d.trace!.cycles, o.vcd, vcd);
    const fields = f
      .protocol()
      .response.map((x) => x.name)
      .join(', ');
    if (o.json) {
      console.log(
        JSON.stringify(
          {
            config: f.name,
            family: f.family.id,
            ops: d.ops,
            cycles: d.cycles,
            responses: d.responses,
            finished: d.finished,
            stopReason: d.stopReason,
            aging: f.aging() ? { name: f.aging()!.name, events: d.agingEvents } : null,
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
    } else {
      console.log(`model vs simulator: ${d.responses} responses (tag, ${fields}), ${d.mismatchCount} mismatches`);
      for (const x of d.mismatches.slice(0, 5))
        console.log(`  op ${x.op} (${x.kind}): expected ${x.expected}, got ${x.got}`);
      console.log(`memories vs model: ${r.memory.checked} ${r.memory.unit}, ${r.memory.count} mismatches`);
      for (const x of r.memory.mismatches.slice(0, 5)) console.log(`  ${x}`);
      for (const cmp of r.rtl) console.log(formatComparison(cmp, d.design).split('\n').slice(0, 6).join('\n'));
      console.log(`${agingText(f, d)}stall cycles ${d.stallCycles}${o.vcd ? `; VCD in ${o.vcd}` : ''}`);
      if (!d.finished) console.log(`verify: stopped: ${d.stopReason}`);
      console.log(
        `verify: ${d.ops} ops, ${d.cycles} cycles, ${r.mismatches} mismatches${d.finished ? '' : ', not finished'}`,
      );
    }
    if (!r.ok) process.exitCode = EXIT.checkFailed;
  });
}

interface SimulateOptions extends VcdFlags {
  ops: number;
  seed: number;
  workload: string;
  universe?: number;
  json?: boolean;
}

interface VerifyCliOptions extends VcdFlags {
  ops: number;
  seed: number;
  backpressure: number;
  idle: number;
  icarus?: boolean;
  json?: boolean;
}
