/** Argument parsers shared by the commands: each rejects a bad value naming the option. */
import { InvalidArgumentError, type Command } from 'commander';
import { TARGETS, type Target } from '../device/index.js';
import type { OptionSpec } from '../families/types.js';

/** A whole number in min..max. */
export function intArg(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (v: string): number => {
    if (!/^\d+$/.test(v)) throw new InvalidArgumentError(`${name} must be a whole number`);
    const n = Number(v);
    if (n < min || n > max) throw new InvalidArgumentError(`${name} must be in ${min}..${max}`);
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
    cmd.option(o.flags, o.description);
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
