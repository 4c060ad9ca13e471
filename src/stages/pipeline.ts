/**
 * Stage: one register stage for a request's fields (the SpinalHDL `m2sPipe` of a record).
 *
 * Registers: `<prefix>_<field>_p1` for every field given (undefined fields are skipped, so a
 * record can carry optional fields), in the record's order. Latency 1, no stall (an II = 1
 * pipeline never holds a stage). Fields named in `control` reset to 0: a pipeline leaving reset
 * carries no phantom request or insert. The other fields have no reset (less logic on every
 * register): they only mean something while the valid beside them is 1.
 */
import type { ModuleBuilder, Sig } from '../dsl/module.js';

/** The fields of a request record (optional ones may be undefined). */
export type Fields = Record<string, Sig | undefined>;

/** The control fields of the filter pipelines: reset, so a reset pipeline is empty. */
export const CONTROL_FIELDS = ['valid', 'ins', 'query'] as const;

export interface PipeStageOptions {
  /** Fields that reset to 0 (default: CONTROL_FIELDS). */
  control?: readonly string[];
}

/** Every field of `fields` through one register named `<prefix>_<field>`; same keys, one cycle later. */
export function pipeStage<T extends Fields>(
  m: ModuleBuilder,
  prefix: string,
  fields: T,
  opts: PipeStageOptions = {},
): T {
  const control = opts.control ?? CONTROL_FIELDS;
  const out: Fields = {};
  for (const [name, sig] of Object.entries(fields)) {
    if (sig === undefined) continue;
    out[name] = m.pipe(sig, 1, `${prefix}_${name}`, control.includes(name) ? {} : { reset: null });
  }
  return out as T;
}

/** `r` without the named fields (a field stops travelling once its last user has it). */
export function omit<T extends object, K extends keyof T>(r: T, ...names: K[]): Omit<T, K> {
  const out = { ...r };
  for (const n of names) delete out[n];
  return out;
}
