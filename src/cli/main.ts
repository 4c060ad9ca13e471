/**
 * The bloomforge command line. Exit codes: 0 ok, 1 a check failed (mismatches), 2 usage,
 * config or design error (one line naming the field, signal or line), 3 missing external tool.
 */
import { pathToFileURL } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { emitVerilog } from '../emit/verilog.js';
import { manifestJson } from '../emit/manifest.js';
import { EXAMPLES } from '../examples/index.js';
import { DesignError } from '../ir/errors.js';
import type { Design } from '../ir/types.js';
import { inputFile, outputFile, writeAll } from '../util/files.js';
import { VERSION } from '../version.js';
import { ToolMissingError } from '../tools/index.js';
import { cosimulate } from '../../sim/cosim/index.js';
import { formatComparison } from '../../sim/cosim/compare.js';
import { randomStimulus } from '../../sim/stimulus.js';
import { CompiledSim } from '../../sim/compiled.js';
import { packRows } from '../../sim/stimulus.js';
import { demo } from './demo.js';
import { registerFilterCommands } from './filters.js';
import { registerFuzzCommand } from './fuzz.js';
import { registerLaneCommands } from './lanes.js';
import { registerSnapshotCommand } from './snapshot.js';
import { registerSoakCommand } from './soak.js';
import { registerHwCommands } from './hw.js';
import { addVcdOptions, intArg, vcdOptions, writeVcd, type VcdFlags } from './args.js';
import { presetFilters } from '../config/resolve.js';
import { lanePresets } from '../config/lanes.js';
import { ConfigError, EXIT, UsageError } from '../util/errors.js';
import { registerAnalysisCommands, registerPlanCommand } from './analysis.js';
import { registerExperimentCommands } from './experiments.js';

/** A design is an example name or a .ts/.js/.mjs/.mts file whose default export builds one. */
async function loadDesign(spec: string): Promise<Design> {
  const example = EXAMPLES[spec];
  if (example) return example();
  if (!/\.(m?ts|m?js)$/.test(spec)) {
    throw new UsageError(
      `design: '${spec}' is neither an example (${Object.keys(EXAMPLES).join(', ')}) nor a .ts/.js file`,
    );
  }
  const file = inputFile(spec, 'design', ['.ts', '.mts', '.js', '.mjs']);
  let mod: { default?: unknown };
  try {
    mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (e) {
    if (e instanceof Error && e.name === 'DesignError') throw e;
    const text =
      typeof e === 'object' && e !== null && 'message' in e ? String((e as { message: unknown }).message) : String(e);
    // A syntax error comes from the TypeScript transform as "Transform failed…\nFILE:L:C: ERROR: …".
    const syntax = /:(\d+):(\d+): ERROR: (.*)/.exec(text);
    if (syntax) throw new UsageError(`design: ${spec}:${syntax[1]}:${syntax[2]}: ${syntax[3]}`);
    throw new UsageError(
      `design: cannot load '${spec}' as an ES module (outside an ESM package, name it .mts): ${text.split('\n')[0]}`,
    );
  }
  const exp = mod.default;
  let d: unknown;
  try {
    d = typeof exp === 'function' ? (exp as () => unknown)() : exp;
  } catch (e) {
    if (e instanceof Error && e.name === 'DesignError') throw e;
    throw new UsageError(
      `design: the default export of '${spec}' threw: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`,
    );
  }
  if (!d || typeof d !== 'object' || !('cells' in d) || !('nets' in d)) {
    throw new UsageError(
      `design: '${spec}' must default-export a Design or a function returning one (ModuleBuilder.build())`,
    );
  }
  return d as Design;
}

async function selftest(cycles: number, seed: number): Promise<number> {
  console.log(
    `bloomforge ${VERSION} selftest: ${Object.keys(EXAMPLES).length} example designs, ${cycles} random cycles each`,
  );
  console.log(
    'engines: TS compiled simulator vs reference interpreter, Verilator -O3, Icarus Verilog; VCD vs Verilator',
  );
  let bad = 0;
  for (const [name, make] of Object.entries(EXAMPLES)) {
    const d = make();
    const r = await cosimulate(d, randomStimulus(d, cycles, seed), { icarus: true, vcd: true });
    const status = r.comparisons.map((c) => `${c.engines[1]}:${c.count === 0 ? 'ok' : c.count}`).join(' ');
    const vcd = r.vcd
      ? ` vcd(${r.vcd.signals.length} signals):${r.vcd.mismatches.length === 0 ? 'ok' : r.vcd.mismatches.length}`
      : '';
    console.log(`  ${name.padEnd(12)} ${String(d.cells.length).padStart(4)} cells  ${status}${vcd}`);
    if (r.mismatches > 0) {
      bad++;
      for (const c of r.comparisons) if (c.count) console.log(formatComparison(c, d));
    }
  }
  console.log(
    bad === 0 ? 'selftest: all engines agree on every output, every cycle' : `selftest: ${bad} designs disagree`,
  );
  return bad === 0 ? EXIT.ok : EXIT.checkFailed;
}

/** The commands on generic designs (an example or a DSL file): examples, build, sim, cosim. */
function registerDesignCommands(p: Command): void {
  p.command('examples')
    .description('list the generic example designs')
    .action(() => {
      for (const [name, make] of Object.entries(EXAMPLES)) {
        const d = make();
        console.log(
          `${name.padEnd(12)} ${d.inputs.length} inputs, ${d.outputs.length} outputs, ${d.cells.length} cells`,
        );
      }
    });

  p.command('build')
    .description('emit Verilog and a manifest for an example or a DSL design file')
    .argument('<design>', 'example name or a design file default-exporting a design (.mts outside this package)')
    .requiredOption('-o, --out <dir>', 'output directory (required)')
    .action(async (spec: string, o: { out: string }) => {
      const d = await loadDesign(spec);
      const files = writeAll(o.out, { [`${d.name}.v`]: emitVerilog(d), [`${d.name}.manifest.json`]: manifestJson(d) });
      for (const f of files) console.log(`wrote ${f}`);
    });

  addVcdOptions(
    p
      .command('sim')
      .description('run random stimulus on the compiled TS simulator; optionally write a VCD')
      .argument('<design>', 'example name or a design file (.mts outside this package)')
      .option('--cycles <n>', 'cycles', intArg('--cycles', 1, 10_000_000), 1000)
      .option('--seed <s>', 'stimulus seed', intArg('--seed', 0, 0xffffffff), 1),
  ).action(async (spec: string, o: { cycles: number; seed: number } & VcdFlags) => {
    const vcd = vcdOptions(o);
    const d = await loadDesign(spec);
    const stim = randomStimulus(d, o.cycles, o.seed);
    const sim = new CompiledSim(d);
    sim.runBatch(packRows(d, d.inputs, stim), o.cycles);
    if (o.vcd) writeVcd(d, packRows(d, d.inputs, stim), o.cycles, o.vcd, vcd);
    console.log(`${d.name}: ${o.cycles} cycles simulated${o.vcd ? `, VCD in ${o.vcd}` : ''}`);
  });

  p.command('cosim')
    .description('compare TS simulator, interpreter, Verilator (and Icarus) cycle by cycle')
    .argument('<design>', 'example name or a design file (.mts outside this package)')
    .option('--cycles <n>', 'cycles', intArg('--cycles', 1, 10_000_000), 2000)
    .option('--seed <s>', 'stimulus seed', intArg('--seed', 0, 0xffffffff), 1)
    .option('--icarus', 'also run Icarus Verilog')
    .option('--vcd <file>', "write the TS simulator's VCD (every net) and compare it with Verilator's --trace VCD")
    .action(async (spec: string, o: { cycles: number; seed: number; icarus?: boolean; vcd?: string }) => {
      if (o.vcd !== undefined) outputFile(o.vcd, '--vcd');
      const d = await loadDesign(spec);
      const r = await cosimulate(d, randomStimulus(d, o.cycles, o.seed), {
        icarus: !!o.icarus,
        vcd: o.vcd !== undefined,
        vcdFile: o.vcd,
      });
      for (const c of r.comparisons) console.log(formatComparison(c, d));
      if (r.vcd) {
        console.log(`${d.name}: VCD ${r.vcd.signals.length} signals, ${r.vcd.mismatches.length} sample mismatches`);
        for (const m of r.vcd.mismatches.slice(0, 10))
          console.log(`  cycle ${m.cycle} ${m.signal}: ts=${m.a} verilator=${m.b}`);
      }
      console.log(`cosim: ${r.cycles} cycles, ${r.mismatches} mismatches`);
      if (r.mismatches > 0) process.exitCode = EXIT.checkFailed;
    });
}

/** demo, selftest and golden. */
function registerToolCommands(p: Command): void {
  p.command('demo')
    .description(
      'the default filters as IP: generate, verify (model, TS simulator, Verilator), synthesise, time; one table',
    )
    .option('-o, --out <dir>', 'output directory', 'out/demo')
    .option('--ops <n>', 'ops verified per filter', intArg('--ops', 1, 10_000_000), 20_000)
    .option('--cycles <n>', 'cycles of the simulator benchmark', intArg('--cycles', 1000, 100_000_000), 200_000)
    .action(async (o: { out: string; ops: number; cycles: number }) => {
      process.exitCode = await demo({ out: o.out, ops: o.ops, simCycles: o.cycles });
    });

  p.command('selftest')
    .description('generate, simulate and co-simulate every generic example design on every engine')
    .option('--cycles <n>', 'cycles per design', intArg('--cycles', 1, 1_000_000), 2000)
    .option('--seed <s>', 'stimulus seed', intArg('--seed', 0, 0xffffffff), 1)
    .action(async (o: { cycles: number; seed: number }) => {
      process.exitCode = await selftest(o.cycles, o.seed);
    });

  p.command('golden')
    .description('regenerate the golden Verilog: presets in DIR, examples in DIR/examples (make generate)')
    .option('-o, --out <dir>', 'output directory', 'generated')
    .action((o: { out: string }) => {
      const examples: Record<string, string> = {};
      for (const make of Object.values(EXAMPLES)) {
        const d = make();
        examples[`${d.name}.v`] = emitVerilog(d);
        examples[`${d.name}.manifest.json`] = manifestJson(d);
      }
      const presets: Record<string, string> = {};
      for (const f of presetFilters()) Object.assign(presets, f.files());
      for (const f of lanePresets()) Object.assign(presets, f.files());
      // Files of presets that no longer exist go too: generated/ mirrors the registry.
      const stale = fs.existsSync(o.out)
        ? fs.readdirSync(o.out).filter((x) => /\.(v|manifest\.json)$/.test(x) && !(x in presets))
        : [];
      for (const x of stale) {
        fs.rmSync(path.join(o.out, x));
        console.log(`removed ${path.join(o.out, x)} (no such preset)`);
      }
      const n = writeAll(`${o.out}/examples`, examples).length + writeAll(o.out, presets).length;
      console.log(`wrote ${n} files to ${o.out}`);
    });
}

export function program(): Command {
  const p = new Command('bloomforge')
    .description('Sliding-window and time-decaying Bloom filters as verified RTL')
    .version(VERSION)
    .exitOverride()
    .configureOutput({ outputError: (s, write) => write(`bloomforge: ${s.replace(/^error: /, '')}`) });

  registerDesignCommands(p);
  registerToolCommands(p);
  registerFilterCommands(p);
  registerFuzzCommand(p);
  registerLaneCommands(p);
  registerSoakCommand(p);
  registerSnapshotCommand(p);
  registerHwCommands(p);
  registerAnalysisCommands(p);
  registerPlanCommand(p);
  registerExperimentCommands(p);
  return p;
}

export async function main(argv: string[]): Promise<number> {
  try {
    await program().parseAsync(argv, { from: 'user' });
    return Number(process.exitCode ?? 0);
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : EXIT.usage;
    // By name too: a design file may load its own copy of the DSL module.
    if (
      e instanceof DesignError ||
      e instanceof UsageError ||
      e instanceof ConfigError ||
      (e instanceof Error && e.name === 'DesignError')
    ) {
      console.error(`bloomforge: ${e.message.split('\n')[0]}`);
      return EXIT.usage;
    }
    if (e instanceof ToolMissingError) {
      console.error(`bloomforge: ${e.message}`);
      return EXIT.tool;
    }
    throw e;
  }
}

const isEntry = process.argv[1] && /(main\.ts|bloomforge(\.mjs)?)$/.test(process.argv[1]);
if (isEntry) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
