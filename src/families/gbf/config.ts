/**
 * GBF configs (Dautrich & Ravishankar §5; the hardware's partitioned layout, see types.ts):
 *   {"filter":"gbf","k0":4,"k1":4,"cellsPerBank":4096,"window":4096,"keyBits":64,"seed":1}
 * Optional: `wordBits` (block RAM word, default 16, at most half a bank), `tagBits`, `target`,
 * `decision` (the inferential decision unit):
 *   {"classes":[{"px":0.00025,"window":2048,"name":"uniform"}, …],"posteriorBits":15}
 * — each class a prior p_x and the window w its posterior is for (default: the config's window).
 */
import { z } from 'zod';
import { DEFAULT_TARGET } from '../../device/index.js';
import { configSchema, DEFAULT_TAG_BITS, failer, parseConfig, pow2, positiveInt } from '../schema.js';
import type { Fail } from '../types.js';
import type { GbfDecisionDerived, GbfDerived } from './types.js';

/** At most this many hashes (banks) in all. */
export const MAX_BANKS = 64;

export const GbfDecisionSchema = z
  .object({
    /** Prior classes selected per request by in_class: p_x and the window of each. */
    classes: z
      .array(
        z
          .object({
            px: z.number().gt(0).lt(1),
            window: positiveInt(1 << 30).optional(),
            name: z.string().optional(),
          })
          .strict(),
      )
      .min(1)
      .max(16),
    /** Posterior table precision: P(I_x < w | R_x) stored as round(p · 2^posteriorBits). */
    posteriorBits: z.number().int().min(4).max(24).optional(),
  })
  .strict();

export const gbfSchema = configSchema(['gbf'] as const, {
  k0: positiveInt(MAX_BANKS - 1),
  k1: positiveInt(MAX_BANKS - 1),
  cellsPerBank: pow2(1 << 24),
  wordBits: pow2(64).optional(),
  window: positiveInt(1 << 30),
  decision: GbfDecisionSchema.optional(),
});

export type GbfConfig = z.infer<typeof gbfSchema>;

/** A written config -> the derived config (ConfigError naming the field). */
export function deriveGbf(raw: unknown, source = 'config'): GbfDerived {
  return deriveGbfSizes(parseConfig(gbfSchema, raw, source), failer(source));
}

/** Explicit sizes -> the derived config (the family's `derive`). */
export function deriveGbfSizes(cfg: Readonly<Record<string, unknown>>, fail: Fail): GbfDerived {
  const c = cfg as GbfConfig;
  const K = c.k0 + c.k1;
  if (K > MAX_BANKS) fail('k1', `k0 + k1 = ${K} banks; at most ${MAX_BANKS}`);
  if (c.cellsPerBank < 2) fail('cellsPerBank', 'must be at least 2');
  const wordBits = c.wordBits ?? Math.min(16, c.cellsPerBank / 2);
  if (wordBits > c.cellsPerBank / 2)
    fail('wordBits', `at most ${c.cellsPerBank / 2} (half a bank: a block RAM is at least two words deep)`);
  let decision: GbfDecisionDerived | null = null;
  if (c.decision) {
    const d = c.decision;
    decision = {
      classes: d.classes.map((x, i) => ({ px: x.px, window: x.window ?? c.window, name: x.name ?? `class${i}` })),
      posteriorBits: d.posteriorBits ?? 15,
    };
  }
  return {
    name: c.name,
    filter: 'gbf',
    k0: c.k0,
    k1: c.k1,
    m: K * c.cellsPerBank,
    layout: 'partitioned',
    cellsPerBank: c.cellsPerBank,
    wordBits,
    wordsPerBank: c.cellsPerBank / wordBits,
    window: c.window,
    keyBits: c.keyBits,
    seed: c.seed,
    tagBits: c.tagBits ?? DEFAULT_TAG_BITS,
    target: c.target ?? DEFAULT_TARGET,
    decision,
  };
}
