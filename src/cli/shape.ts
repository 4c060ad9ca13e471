/**
 * The lane shape flags every config command takes (--lanes, --shards, --merge/--no-merge,
 * --target) and the one loader behind them: any config, one-lane or N-lane, as the filter it
 * describes. Under `bloomforge lanes …` the same commands resolve every config as an N-lane one
 * (one lane when it names none).
 */
import type { Command } from 'commander';
import { loadFilter } from '../config/load.js';
import { TARGETS, type Target } from '../device/index.js';
import type { AnyFilter } from '../lanes/filter.js';
import type { Filter } from '../families/filter.js';
import { UsageError } from '../util/errors.js';
import { intArg, numberChoiceArg, targetArg } from './args.js';
import { LANE_COUNTS } from '../lanes/filter.js';

export interface ShapeFlags {
  lanes?: number;
  shards?: number;
  target?: Target;
  merge?: boolean;
}

/** How a command is registered: at the top, or under `lanes` (every config an N-lane one). */
export interface CommandWorld {
  asLanes: boolean;
}

export const TOP: CommandWorld = { asLanes: false };
export const LANES: CommandWorld = { asLanes: true };

export function shapeOptions(c: Command): Command {
  return c
    .option(
      '--lanes <n>',
      'request lanes: 1, 2, 4 or 8 (default: the config, else one lane)',
      numberChoiceArg('--lanes', LANE_COUNTS),
    )
    .option(
      '--shards <s>',
      'shards of an N-lane filter, a power of two >= lanes (default: the config, else lanes)',
      intArg('--shards', 1, 1 << 16),
    )
    .option('--target <t>', `one of ${TARGETS.join(', ')} (default: the config's target)`, targetArg)
    .option(
      '--merge',
      'N lanes: merge identical keys: heads of a cycle with the same key share one shard access (default: the config)',
    )
    .option('--no-merge', "N lanes: do not merge identical keys (overrides the config's merge)");
}

/** The config `spec` with the flags' shape, as the command's world resolves it. */
export function loadFor(spec: string, o: ShapeFlags, world: CommandWorld): AnyFilter {
  return loadFilter(spec, {
    lanes: o.lanes,
    shards: o.shards,
    merge: o.merge,
    target: o.target,
    asLanes: world.asLanes,
  });
}

/** A one-lane filter, or a usage error naming `what` (an option or command) that has no N-lane form. */
export function oneLane(f: AnyFilter, what: string): Filter {
  if (f.kind === 'lanes') throw new UsageError(`${what} applies to one-lane filters; ${f.name} has ${f.lanes} lanes`);
  return f;
}

/** Refuses options given that apply to one kind of filter only; `given` maps an option flag to whether it was given. */
export function refuseFor(f: AnyFilter, kind: AnyFilter['kind'], given: Record<string, boolean>): void {
  if (f.kind !== kind) return;
  for (const [flag, on] of Object.entries(given))
    if (on)
      throw new UsageError(
        kind === 'lanes'
          ? `${flag} applies to one-lane filters; ${f.name} has ${f.lanes} lanes`
          : `${flag} applies to N-lane filters; ${f.name} has one lane (give --lanes)`,
      );
}
