/**
 * Config schema pieces every family shares (zod), and the one-line message of a failed check.
 * A family's schema is `configSchema(filters, { ...its own fields })`.
 */
import { z } from 'zod';
import { TARGETS, type Target } from '../device/index.js';
import { KEYWORDS } from '../ir/passes/nameNets.js';
import { ConfigError } from '../util/errors.js';
import type { Fail } from './types.js';
import { KEY_MIXES } from '../model/keyMix.js';

export const positiveInt = (max: number) => z.number().int().min(1).max(max);
export const pow2 = (max: number) =>
  positiveInt(max).refine((v) => Number.isInteger(Math.log2(v)), { message: 'must be a power of two' });

/** The fields every config has: name, filter, key and tag widths, hash seed, target, description. */
export function configSchema<F extends readonly [string, ...string[]], S extends z.ZodRawShape>(filters: F, shape: S) {
  return z
    .object({
      name: z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a legal Verilog identifier')
        .refine((n) => !KEYWORDS.has(n), { message: 'is a Verilog keyword; choose another name' }),
      filter: z.enum(filters),
      keyBits: z.number().int().min(8).max(512),
      seed: z.number().int().min(0).max(0xffffffff),
      tagBits: z.number().int().min(1).max(32).optional(),
      target: z.enum(TARGETS as unknown as [Target, ...Target[]]).optional(),
      description: z.string().optional(),
      keyMix: z.enum(KEY_MIXES).optional(),
      ...shape,
    })
    .strict();
}

/** The first problem of a failed schema check, as one line naming the field. */
export function zodMessage(e: z.ZodError): string {
  const issue = e.issues[0]!;
  const field = issue.path.length ? issue.path.join('.') : '(config)';
  if (issue.code === 'unrecognized_keys') return `unknown field '${issue.keys.join("', '")}'`;
  return `field '${field}': ${issue.message}`;
}

/** Default tag width when a config gives none. */
export const DEFAULT_TAG_BITS = 8;

/** A `fail` that throws ConfigError `<source>: field '<field>': <message>`. */
export function failer(source: string): Fail {
  return (field, message) => {
    throw new ConfigError(`${source}: field '${field}': ${message}`);
  };
}

/** Validates a written config against a schema; the first problem as a one-line ConfigError. */
export function parseConfig<T>(schema: z.ZodType<T>, raw: unknown, source: string): T {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(`${source}: ${zodMessage(parsed.error)}`);
  return parsed.data;
}
