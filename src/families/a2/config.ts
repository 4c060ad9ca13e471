/**
 * A² configs: the schema (zod) and the derivation of every parameter the model and the RTL need
 * from explicit sizes (a config with `window` and `fp` instead goes to the planner first,
 * ./planner.ts). Every invalid field gives a one-line error naming it.
 *
 * Sizes: k hashes per half, `bankBits` bits per bank (a power of two; m = 2·k·bankBits), κ
 * (`kappa`, default the seed's κ_a* = ⌊bankBits · ln 2⌋, every bank half full when a half is
 * complete), `wordBits` (block RAM word; default 16, wider only when needed, see below).
 *
 * Zero-stall bound. A swap flushes the old standby set in the background, one word per cycle,
 * and that set is the next active one: its last zero must land before the first read of an op
 * that uses it as the active half. The swap is decided at stage D (4 cycles after the read, see
 * ./rtl.ts), the clear channel starts the cycle after, writes from CLEAR_DELAY + 1 cycles later
 * and its writes land 2 cycles after they issue: the last zero lands depth + CLEAR_DELAY + 3
 * cycles after the swap; the next swap comes κ real inserts (≥ κ cycles) after it, and the op
 * after that swap read its words 3 cycles before that swap's decision. So the config must satisfy
 *     depth + CLEAR_DELAY + CLEAR_SKEW ≤ κ,     depth = bankBits / wordBits,  CLEAR_SKEW = 7
 * (the APBF's m/(b·W) + CLEAR_DELAY + 1 ≤ spares·g with one spare set, κ for g, and the skew of
 * a swap decided after the read instead of at accept). Tested at the bound (./rtl test).
 */
import { z } from 'zod';
import { DEFAULT_TARGET } from '../../device/index.js';
import { CLEAR_DELAY } from '../../stages/clear.js';
import { configSchema, DEFAULT_TAG_BITS, failer, parseConfig, pow2, positiveInt } from '../schema.js';
import type { Fail } from '../types.js';
import { optimalKappa } from './analysis.js';
import type { A2Derived } from './types.js';

/** Cycles a flush needs beyond its words and CLEAR_DELAY (see the header). */
export const CLEAR_SKEW = 7;
const MAX_WORD_BITS = 4096;
export const MAX_K = 32;
export const MAX_KAPPA = 1 << 26;

export const a2Schema = configSchema(['a2'] as const, {
  k: positiveInt(MAX_K).optional(),
  kappa: positiveInt(MAX_KAPPA).optional(),
  bankBits: pow2(1 << 24).optional(),
  wordBits: pow2(MAX_WORD_BITS).optional(),
  /** Planner intent (instead of k, kappa, bankBits): the window and the false-positive rate. */
  window: positiveInt(MAX_KAPPA).optional(),
  fp: z.number().gt(0).lt(1).optional(),
});

export type A2Config = z.infer<typeof a2Schema>;

/** Cycles from a swap to the last zero of its flush, plus the read skew: must be ≤ κ. */
export function flushCycles(depth: number): number {
  return depth + CLEAR_DELAY + CLEAR_SKEW;
}

export function zeroStallBound(d: { depth: number; kappa: number }): boolean {
  return flushCycles(d.depth) <= d.kappa;
}

/** A written config with explicit sizes -> the derived config (ConfigError naming the field). */
export function deriveA2(raw: unknown, source = 'config'): A2Derived {
  return deriveA2Sizes(parseConfig(a2Schema, raw, source), failer(source));
}

/** Explicit sizes -> the derived config (the family's `derive`). */
export function deriveA2Sizes(cfg: Readonly<Record<string, unknown>>, fail: Fail): A2Derived {
  const c = cfg as A2Config;
  if (c.window !== undefined || c.fp !== undefined)
    fail(
      c.window !== undefined ? 'window' : 'fp',
      'only without k, kappa and bankBits (then the planner chooses them)',
    );
  if (c.k === undefined)
    return fail('k', 'give k and bankBits (and optionally kappa), or window and fp for the planner');
  if (c.bankBits === undefined)
    return fail('bankBits', 'give bankBits (bits per bank, a power of two), or window and fp');
  const k = c.k;
  const bankBits = c.bankBits;
  if (bankBits < 2) fail('bankBits', 'must be at least 2 (a bank needs two words)');
  const kappa = c.kappa ?? optimalKappa(2 * k * bankBits, k);
  if (kappa < 1) fail('bankBits', `too small: the default kappa floor(bankBits·ln2) is ${kappa}; give kappa`);
  const maxWord = Math.min(MAX_WORD_BITS, bankBits / 2);
  if (c.wordBits !== undefined && c.wordBits > maxWord)
    fail('wordBits', `must be at most ${maxWord} (a bank of ${bankBits} bits needs at least two words)`);
  /** The narrowest word (a power of two, at least `from`) whose flush fits in κ. */
  const wordFor = (from: number): number | null => {
    for (let W = from; W <= maxWord; W *= 2) if (flushCycles(bankBits / W) <= kappa) return W;
    return null;
  };
  const W = c.wordBits ?? wordFor(Math.min(16, maxWord)) ?? maxWord;
  const depth = bankBits / W;
  if (flushCycles(depth) > kappa) {
    const need = flushCycles(depth);
    const wider = wordFor(W * 2);
    if (c.wordBits !== undefined && wider !== null)
      fail(
        'wordBits',
        `${W}-bit words cannot be flushed in time: flushing a half takes ${need} cycles (depth ${depth} + ${need - depth}) ` +
          `but kappa = ${kappa} real inserts can come first; use wordBits >= ${wider} or kappa >= ${need}`,
      );
    fail(
      c.kappa !== undefined ? 'kappa' : 'bankBits',
      `kappa = ${kappa} is too short to flush a half in the background: flushing ${depth} words of ${W} bits takes ` +
        `${need} cycles (depth + ${need - depth}); use kappa >= ${need}` +
        (c.kappa !== undefined ? '' : ' or a larger bankBits'),
    );
  }
  return {
    name: c.name,
    filter: 'a2',
    k,
    kappa,
    bankBits,
    wordBits: W,
    depth,
    keyBits: c.keyBits,
    seed: c.seed,
    tagBits: c.tagBits ?? DEFAULT_TAG_BITS,
    bits: 2 * k * bankBits,
    window: kappa,
    slack: kappa - 1,
    target: c.target ?? DEFAULT_TARGET,
  };
}
