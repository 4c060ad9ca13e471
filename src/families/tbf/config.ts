/**
 * TBF/BTBF configs (Dautrich & Ravishankar §3): schema and derivation of what the model and the
 * RTL need. Field names follow the issue so configs are portable:
 *   {"filter":"tbf"|"btbf","k":4,"timersPerBank":4096,"timerBits":8,"window":2000,
 *    "blockSize":16,"padding":4,"keyBits":64,"seed":1}
 *
 * Timestamps: T+ cycles through 0..TΩ with TΩ = ⌈w/B⌉ + 1 + P; Tε = 2^timerBits − 1 is the
 * expired value and must stay outside 0..TΩ.
 *
 * Expiry scan schedule (the hardware's, and the model's for the partitioned layout): after every
 * insertion the scanner checks one word of `timersPerWord` timers in every bank, at a word pointer
 * that walks 0..wordsPerBank−1 cyclically. A timer becomes markable at age ⌈w/B⌉ + 1 and aliases
 * to a young age when its age would reach TΩ + 1; the ages ⌈w/B⌉ + 1 .. TΩ last B·(P + 1)
 * insertions (each T+ value lasts B insertions), so every timer is marked in time iff
 *     wordsPerBank ≤ B·(P + 1)                                                  (scan bound)
 * `padding` defaults to the least P meeting it; `timersPerWord` defaults to the packing with the
 * fewest iCE40 block RAMs among those meeting it with some P that fits the timer width.
 */
import { z } from 'zod';
import { DEFAULT_TARGET, device } from '../../device/index.js';
import { configSchema, DEFAULT_TAG_BITS, failer, parseConfig, pow2, positiveInt } from '../schema.js';
import type { Fail } from '../types.js';
import type { TbfDecisionDerived, TbfDerived } from './types.js';

const DistinctSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('uniform'), universe: positiveInt(2 ** 40) }).strict(),
  z.object({ kind: z.literal('powerlaw'), universe: positiveInt(2 ** 32) }).strict(),
  z
    .object({
      kind: z.literal('sampled'),
      points: z.array(z.tuple([z.number().positive(), z.number().positive()])).min(2),
    })
    .strict(),
]);

export const DecisionSchema = z
  .object({
    /** D(j), the expected number of distinct items among j insertions (§2.5). */
    distinct: DistinctSchema,
    /** Prior classes selected per request by in_class: the item probability p_x of each. */
    classes: z
      .array(z.object({ px: z.number().gt(0).lt(1), name: z.string().optional() }).strict())
      .min(1)
      .max(8)
      .optional(),
    /** Posterior table precision: P(I_x < w | R_x) stored as round(p · 2^posteriorBits). */
    posteriorBits: z.number().int().min(4).max(24).optional(),
  })
  .strict();

export const tbfSchema = configSchema(['tbf', 'btbf'] as const, {
  k: positiveInt(16).optional(),
  timersPerBank: pow2(1 << 22).optional(),
  timerBits: z.number().int().min(2).max(30).optional(),
  window: positiveInt(1 << 24),
  /** Instead of k, timersPerBank, timerBits (and blockSize): the planner picks them for this fp. */
  fp: z.number().gt(0).lt(1).optional(),
  blockSize: pow2(1 << 16).optional(),
  padding: z
    .number()
    .int()
    .min(0)
    .max(1 << 24)
    .optional(),
  timersPerWord: pow2(64).optional(),
  decision: DecisionSchema.optional(),
});

export type TbfConfig = z.infer<typeof tbfSchema>;

/**
 * Estimated iCE40 SB_RAM40_4K count of one timer bank (two timer copies + the mark bits), all in
 * the block's widest mode (what the planner compares candidates by).
 */
export function tbfBankBlockRams(timersPerBank: number, timerBits: number, t: number): number {
  const depth = timersPerBank / t;
  const [modeWidth, modeDepth] = device(DEFAULT_TARGET).bram.modes[0]!;
  const blocks = (width: number): number => Math.ceil(width / modeWidth) * Math.ceil(depth / modeDepth);
  return 2 * blocks(t * (timerBits + 1)) + blocks(t);
}

/** A written config with explicit sizes -> the derived config (ConfigError naming the field). */
export function deriveTbf(raw: unknown, source = 'config'): TbfDerived {
  return deriveTbfSizes(parseConfig(tbfSchema, raw, source), failer(source));
}

/** Explicit sizes -> the derived config (the family's `derive`). */
export function deriveTbfSizes(cfg: Readonly<Record<string, unknown>>, fail: Fail): TbfDerived {
  const c0 = cfg as TbfConfig;
  if (c0.fp !== undefined)
    return fail('fp', 'only without k, timersPerBank and timerBits (then the planner chooses them)');
  if (c0.k === undefined || c0.timersPerBank === undefined || c0.timerBits === undefined) {
    const missing = c0.k === undefined ? 'k' : c0.timersPerBank === undefined ? 'timersPerBank' : 'timerBits';
    return fail(missing, 'required (or give fp and let the planner choose the sizes)');
  }
  const c = { ...c0, k: c0.k, timersPerBank: c0.timersPerBank, timerBits: c0.timerBits };
  if (c.filter === 'tbf' && c.blockSize !== undefined && c.blockSize !== 1)
    fail('blockSize', 'only for filter btbf (the TBF advances T+ on every insertion)');
  if (c.filter === 'btbf' && c.blockSize === undefined) fail('blockSize', 'required for filter btbf');
  const B = c.blockSize ?? 1;
  if (B > c.window) fail('blockSize', `must not exceed the window (${c.window})`);
  // With B = 1 and w = 1 a timer is stale two inserts after it is set. The pipeline's scanner
  // leaves alone the lane the op one ahead has just written (its value is not in the word the
  // scanner read), which holds only while that value cannot be stale yet: two inserts advance T+
  // by at most ⌈2/B⌉ ≤ 1 when B ≥ 2, and stale needs an age of ⌈w/B⌉ + 1 ≥ 3 when w ≥ 2.
  if (B === 1 && c.window === 1)
    fail(
      'window',
      'must be at least 2 with blockSize 1 (a one-key window expires timers faster than the scan can follow)',
    );
  if (c.timersPerBank < 2) fail('timersPerBank', 'must be at least 2');
  const markAge = Math.ceil(c.window / B) + 1;
  const tEps = 2 ** c.timerBits - 1;
  const maxPadding = tEps - 1 - markAge;
  if (maxPadding < 0) {
    fail(
      'timerBits',
      `${c.timerBits} bits cannot hold TΩ ≥ ⌈w/B⌉ + 1 = ${markAge} beside Tε = ${tEps}; use timerBits ≥ ${Math.ceil(Math.log2(markAge + 2))}`,
    );
  }
  if (c.padding !== undefined && c.padding > maxPadding) {
    fail(
      'padding',
      `TΩ = ⌈w/B⌉ + 1 + P = ${markAge + c.padding} does not fit ${c.timerBits} timer bits beside Tε = ${tEps}; use padding ≤ ${maxPadding}`,
    );
  }
  const scanOk = (t: number, P: number): boolean => c.timersPerBank / t <= B * (P + 1);
  const maxT = Math.min(64, c.timersPerBank / 2);
  let t: number;
  if (c.timersPerWord !== undefined) {
    t = c.timersPerWord;
    if (t > maxT) fail('timersPerWord', `must be at most ${maxT} (block RAM depth ≥ 2, words ≤ 64 timers)`);
  } else {
    let best: number | null = null;
    for (let cand = 1; cand <= maxT; cand *= 2) {
      if (!scanOk(cand, c.padding ?? maxPadding)) continue;
      if (
        best === null ||
        tbfBankBlockRams(c.timersPerBank, c.timerBits, cand) < tbfBankBlockRams(c.timersPerBank, c.timerBits, best)
      )
        best = cand;
    }
    if (best === null) {
      const need = Math.ceil(c.timersPerBank / (B * ((c.padding ?? maxPadding) + 1)));
      return fail(
        c.padding !== undefined ? 'padding' : 'timerBits',
        `the expiry scan cannot keep up: it checks one word per bank per insertion and must sweep ` +
          `${c.timersPerBank} timers within B·(P+1) insertions, which needs ${need} timers per word (at most ${maxT}); ` +
          `raise ${c.padding !== undefined ? 'padding' : 'timerBits'} or lower timersPerBank`,
      );
    }
    t = best;
  }
  const wordsPerBank = c.timersPerBank / t;
  const minPadding = Math.max(0, Math.ceil(wordsPerBank / B) - 1);
  const P = c.padding ?? minPadding;
  if (!scanOk(t, P)) {
    fail(
      c.padding !== undefined ? 'padding' : 'timersPerWord',
      `the expiry scan cannot keep up: ${wordsPerBank} words per bank (one scanned per insertion) exceed ` +
        `B·(P+1) = ${B * (P + 1)} insertions before a timer would alias; use padding ≥ ${minPadding}` +
        (minPadding > maxPadding ? ` (needs more timerBits)` : '') +
        ` or more timersPerWord`,
    );
  }
  if (P > maxPadding) {
    fail(
      'timerBits',
      `the scan needs padding ≥ ${minPadding}, so TΩ = ${markAge + P} which does not fit ${c.timerBits} timer bits; ` +
        `use more timerBits or more timersPerWord`,
    );
  }
  let decision: TbfDecisionDerived | null = null;
  if (c.decision) {
    const d = c.decision;
    let classes: { px: number; name: string }[];
    if (d.classes) classes = d.classes.map((x, i) => ({ px: x.px, name: x.name ?? `class${i}` }));
    else if (d.distinct.kind === 'sampled')
      return fail('decision.classes', 'required with a sampled D(j) (the prior p_x of each class)');
    else classes = [{ px: 1 / d.distinct.universe, name: 'uniform' }];
    decision = { distinct: d.distinct, classes, posteriorBits: d.posteriorBits ?? 15 };
    const entries = classes.length * 2 ** Math.ceil(Math.log2(c.k + 1)) * 2 ** Math.ceil(Math.log2(c.window));
    if (entries > 1 << 16) {
      fail(
        'decision',
        `the posterior table would have ${entries} entries (classes × 2^⌈log2(k+1)⌉ × 2^⌈log2 w⌉); at most 65536`,
      );
    }
  }
  return {
    name: c.name,
    filter: c.filter,
    k: c.k,
    timersPerBank: c.timersPerBank,
    timerBits: c.timerBits,
    window: c.window,
    blockSize: B,
    padding: P,
    timersPerWord: t,
    keyBits: c.keyBits,
    seed: c.seed,
    tagBits: c.tagBits ?? DEFAULT_TAG_BITS,
    target: c.target ?? DEFAULT_TARGET,
    layout: 'partitioned',
    wordsPerBank,
    markAge,
    tOmega: markAge + P,
    tEps,
    decision,
  };
}
