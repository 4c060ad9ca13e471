/**
 * CLI commands on filter configs of any family, one-lane or N-lane: presets, generate, simulate,
 * verify. `bloomforge lanes generate|verify|analyze|bench` are these same commands
 * (src/cli/lanes.ts).
 */
import type { Command } from 'commander';
import { presetFilters } from '../config/resolve.js';
import { lanePresets } from '../config/lanes.js';
import { UsageError } from '../util/errors.js';
import { writeAll } from '../util/files.js';
import { CONTROLS, INTERFACES, ipFiles, type Control, type Interface } from '../ip/package.js';
import { loadFor, shapeOptions, TOP, type CommandWorld, type ShapeFlags } from './shape.js';
import { simulateCommand } from './simulate.js';
import { verifyCommand } from './verify.js';

function presetsCommand(p: Command): void {
  p.command('presets')
    .description('list the preset filter configs of every family, one-lane and N-lane')
    .action(() => {
      for (const f of presetFilters())
        console.log(
          `${f.name.padEnd(26)} ${f.config.filter} ${f.describe()} w=${f.window() ?? '-'} target=${f.config.target}`,
        );
      for (const f of lanePresets())
        console.log(
          `${f.name.padEnd(26)} ${f.base.config.filter} ${f.base.describe()} w=${f.base.window() ?? '-'} ` +
            `target=${f.base.config.target} lanes=${f.lanes} shards=${f.shards}${f.merge ? ' merge' : ''}`,
        );
    });
}

export function generateCommand(parent: Command, world: CommandWorld): void {
  const cmd = parent
    .command('generate')
    .description(
      'write a filter as IP: <top>.v, <top>.manifest.json, a FuseSoC <top>.core, instantiation templates ' +
        '(<top>_inst.v, <top>_inst.vhd) and README.md with the port table (N lanes: in<i>_*, out<i>_* per lane)',
    )
    .argument('<config>', 'preset name or config JSON file')
    .requiredOption('-o, --out <dir>', 'output directory (required)')
    .option(
      '--interface <i>',
      `${INTERFACES.join(' | ')}: the core's own ports, or an AXI4-Stream wrapper (one-lane filters)`,
      'native',
    )
    .option(
      '--control <c>',
      `${CONTROLS.join(' | ')}: regs adds the control port (counters, freeze, register scan chain, block RAM access: snapshots; one-lane filters)`,
      'none',
    );
  shapeOptions(cmd).action((spec: string, o: ShapeFlags & { out: string; interface: string; control: string }) => {
    if (!INTERFACES.includes(o.interface as Interface))
      throw new UsageError(`--interface must be one of ${INTERFACES.join(', ')}`);
    if (!CONTROLS.includes(o.control as Control))
      throw new UsageError(`--control must be one of ${CONTROLS.join(', ')}`);
    const f = loadFor(spec, o, world);
    for (const file of writeAll(o.out, ipFiles(f, o.interface as Interface, o.control as Control)))
      console.log(`wrote ${file}`);
  });
}

export function registerFilterCommands(p: Command): void {
  presetsCommand(p);
  generateCommand(p, TOP);
  simulateCommand(p, TOP);
  verifyCommand(p, TOP);
}
