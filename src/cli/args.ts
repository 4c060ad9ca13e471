/** Argument parsers shared by the commands: each rejects a bad value naming the option. */
import { InvalidArgumentError, type Command } from 'commander';
import { TARGETS, type Target } from '../device/index.js';
import type { OptionSpec } from '../families/types.js';
import type { Design } from '../ir/types.js';
import { UsageError } from '../util/errors.js';
import { outputFile, writeFileAtomic } from '../util/files.js';
import { estimateVcdBytes, traceToVcdPacked, type VcdOptions } from '../../sim/vcd.js';

/** A whole number in min..max. */
export function intArg(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (v: string): number => {
    if (!/^\d+$/.test(v)) throw new InvalidArgumentError(`${name} must be a whole number`);
    const n = Number(v);
    if (n < min || n > max) throw new InvalidArgumentError(`${name} must be in ${min}..${max}`);
    return n;
  };
}

/** A whole number from a fixed list (`--lanes`: 1, 2, 4 or 8). */
export function numberChoiceArg(name: string, choices: readonly number[]) {
  return (v: string): number => {
    const n = Number(v);
    if (!/^\d+$/.test(v) || !choices.includes(n))
      throw new InvalidArgumentError(`${name} must be one of ${choices.join(', ')}`);
    return n;
  };
}

/** A probability in [0, 1). */
export function ratioArg(name: string) {
  return (v: string): number => {
    const x = Number(v);
    if (!Number.isFinite(x) || x < 0 || x >= 1) throw new InvalidArgumentError(`${name} must be a number in [0, 1)`);
    return x;
  };
}

/** A probability in (0, 1). */
export function probabilityArg(name: string) {
  return (v: string): number => {
    const x = Number(v);
    if (!Number.isFinite(x) || x <= 0 || x >= 1) throw new InvalidArgumentError(`${name} must be a number in (0, 1)`);
    return x;
  };
}

/** One of `choices`. */
export function choiceArg<T extends string>(name: string, choices: readonly T[]) {
  return (v: string): T => {
    if (!(choices as readonly string[]).includes(v))
      throw new InvalidArgumentError(`${name} must be one of ${choices.join(', ')}`);
    return v as T;
  };
}

export function targetArg(v: string): Target {
  if (!(TARGETS as readonly string[]).includes(v))
    throw new InvalidArgumentError(`--target must be one of ${TARGETS.join(', ')}`);
  return v as Target;
}

/** The camel-case key commander gives an option: '--max-npws <x>' -> 'maxNpws'. */
export function optionKey(flags: string): string {
  const long = /--([a-z0-9-]+)/.exec(flags)![1]!;
  return long.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The long flag of an option: '--max-npws <x>' -> '--max-npws'. */
export function optionFlag(flags: string): string {
  return /--[a-z0-9-]+/.exec(flags)![0];
}

/**
 * Adds options that some families (or experiments) contribute to a command, each once. Returns
 * the keys, so the action can check that those given apply to the config at hand.
 */
export function addContributed(cmd: Command, options: readonly OptionSpec[]): string[] {
  const keys: string[] = [];
  for (const o of options) {
    const key = optionKey(o.flags);
    if (keys.includes(key)) continue;
    keys.push(key);
    const choices = o.choices;
    if (!choices) cmd.option(o.flags, o.description);
    else
      cmd.option(o.flags, o.description, (v: string) => {
        const allowed = choices();
        if (!allowed.includes(v))
          throw new InvalidArgumentError(`${optionFlag(o.flags)} must be one of ${allowed.join(', ')}`);
        return v;
      });
  }
  return keys;
}

/** Values of contributed options, by key, from commander's options object. */
export function contributedValues(
  opts: Record<string, unknown>,
  keys: readonly string[],
): Record<string, string | undefined> {
  return Object.fromEntries(keys.map((k) => [k, opts[k] === undefined ? undefined : String(opts[k])]));
}

/** The VCD options of a command that writes one: --vcd FILE, --vcd-all, --vcd-from, --vcd-to. */
export function addVcdOptions(cmd: Command, what = 'the run'): Command {
  return cmd
    .option('--vcd <file>', `write a VCD of ${what} (named nets, in the DSL's scopes)`)
    .option('--vcd-all', 'with --vcd: intermediate nets too')
    .option('--vcd-from <cycle>', 'with --vcd: first cycle written', intArg('--vcd-from', 0))
    .option('--vcd-to <cycle>', 'with --vcd: last cycle written', intArg('--vcd-to', 0));
}

export interface VcdFlags {
  vcd?: string;
  vcdAll?: boolean;
  vcdFrom?: number;
  vcdTo?: number;
}

/** The VCD options given, checked (before any work): the file can be written, the window is sane. */
export function vcdOptions(o: VcdFlags): VcdOptions {
  if (o.vcd === undefined && (o.vcdAll || o.vcdFrom !== undefined || o.vcdTo !== undefined))
    throw new UsageError('--vcd-all, --vcd-from and --vcd-to need --vcd FILE');
  if (o.vcdFrom !== undefined && o.vcdTo !== undefined && o.vcdTo < o.vcdFrom)
    throw new UsageError(`--vcd-to ${o.vcdTo} is before --vcd-from ${o.vcdFrom}`);
  if (o.vcd !== undefined) outputFile(o.vcd, '--vcd');
  return { all: !!o.vcdAll, from: o.vcdFrom, to: o.vcdTo };
}

/** VCDs larger than this get a warning with the estimate before they are written. */
export const VCD_WARN_BYTES = 100 * 1024 * 1024;

/** Writes the VCD of a packed run (atomically), warning on stderr first when it will be large. */
export function writeVcd(d: Design, stim: Uint32Array, cycles: number, file: string, opts: VcdOptions): void {
  const bytes = estimateVcdBytes(d, stim, cycles, opts);
  if (bytes > VCD_WARN_BYTES)
    console.error(
      `bloomforge: warning: the VCD will be about ${Math.round(bytes / 1e6)} MB (${cycles} cycles); ` +
        '--vcd-from/--vcd-to write a window',
    );
  writeFileAtomic(file, '--vcd', (tmp) => traceToVcdPacked(d, stim, cycles, tmp, opts));
}
