/**
 * APBF/APBBF configs: the schema (zod) and the derivation of every parameter the model and the
 * RTL need from explicit sizes (a config with `window` and `fp` instead of k and l goes to the
 * planner first, ./planner.ts). Every invalid field gives a one-line error naming it.
 *
 * APBF/APBBF derivations (Shtul et al. §5.2, §6):
 * - APBF, only `sliceBits` (m): g = floor(m·ln2 / k) (the paper's formula);
 * - APBF, only `generation` (g): m = ceil(g·k / ln2) rounded up to a power of two (block RAM
 *   depths are powers of two);
 * - APBBF: m = `sliceBits` (bits per segment); g defaults to the generation that leaves every part
 *   half full when a segment retires: each of the m/B blocks takes λ = ln 2 / -ln(1 - b/B)
 *   elements on average at fill 1/2 of its parts of B/b bits, and a segment takes inserts for k
 *   generations, so g = floor((m/B)·λ / k). (Table 3's capacity column is λ/(B/b·ln 2).)
 * - window w = l·g, slack s = k·g.
 * Hardware: each bank column is a block RAM of `wordBits`-bit words, depth m/(b·W). A retired
 * bank is cleared in the background, one word per cycle starting CLEAR_DELAY cycles after the
 * shift; with `spares` spare banks it has spares·g inserts (>= cycles) before it is reused, so
 * the config must satisfy m/(b·W) + CLEAR_DELAY + 1 <= spares·g (checked, see `zeroStallBound`).
 */
import { z } from 'zod';
import { DEFAULT_TARGET } from '../../device/index.js';
import { CLEAR_DELAY } from '../../stages/clear.js';
import { configSchema, DEFAULT_TAG_BITS, failer, parseConfig, pow2, positiveInt } from '../schema.js';
import type { Fail } from '../types.js';
import { halfFillLoad } from './analysis.js';
import { apbfLayout } from './model.js';
import type { ApbfDerived } from './types.js';

/** Spare banks at most (each is a block RAM bank that holds no live segment). */
export const MAX_SPARES = 8;
/** The widest block RAM word the schema accepts. */
const MAX_WORD_BITS = 4096;

export const apbfSchema = configSchema(['apbf', 'apbbf'] as const, {
  k: positiveInt(64).optional(),
  l: positiveInt(256).optional(),
  /** Planner intent (instead of k and l): the window and the false-positive rate to meet. */
  window: positiveInt(1 << 26).optional(),
  fp: z.number().gt(0).lt(1).optional(),
  maxNpws: z.number().gt(0).optional(),
  maxSlack: positiveInt(1 << 30).optional(),
  sliceBits: pow2(1 << 24).optional(),
  generation: positiveInt(1 << 24).optional(),
  blockBits: pow2(4096).optional(),
  bitsPerBlock: pow2(64).optional(),
  wordBits: pow2(MAX_WORD_BITS).optional(),
  spares: z.number().int().min(1).max(MAX_SPARES).optional(),
});

export type ApbfConfig = z.infer<typeof apbfSchema>;

export function zeroStallBound(d: { columnDepth: number; spares: number; generation: number }): boolean {
  return d.columnDepth + CLEAR_DELAY + 1 <= d.spares * d.generation;
}

/** A written config with explicit sizes -> the derived config (ConfigError naming the field). */
export function deriveApbf(raw: unknown, source = 'config'): ApbfDerived {
  return deriveApbfSizes(parseConfig(apbfSchema, raw, source), failer(source));
}

/** Explicit sizes -> the derived config (the family's `derive`). */
export function deriveApbfSizes(cfg: Readonly<Record<string, unknown>>, fail: Fail): ApbfDerived {
  const c = cfg as ApbfConfig;
  if (c.k === undefined || c.l === undefined) {
    return fail(c.k === undefined ? 'k' : 'l', 'give k and l, or window and fp for the planner');
  }
  if (c.maxNpws !== undefined || c.maxSlack !== undefined)
    fail(c.maxNpws !== undefined ? 'maxNpws' : 'maxSlack', 'only with window and fp (planner constraints)');
  if (c.window !== undefined || c.fp !== undefined)
    fail(c.window !== undefined ? 'window' : 'fp', 'only without k and l (then the planner chooses them)');
  const K = c.k;
  const Lc = c.l;
  const blocked = c.filter === 'apbbf';
  if (blocked && (c.blockBits === undefined || c.bitsPerBlock === undefined)) {
    fail(c.blockBits === undefined ? 'blockBits' : 'bitsPerBlock', 'required for filter apbbf');
  }
  if (!blocked && (c.blockBits !== undefined || c.bitsPerBlock !== undefined)) {
    fail(c.blockBits !== undefined ? 'blockBits' : 'bitsPerBlock', 'only for filter apbbf');
  }
  const B = c.blockBits ?? 1;
  const b = c.bitsPerBlock ?? 1;
  if (b > B) fail('bitsPerBlock', `must not exceed blockBits (${B})`);
  if (blocked && b === B) fail('bitsPerBlock', 'must be smaller than blockBits (parts of at least 2 bits)');
  let m: number;
  let g: number;
  if (c.sliceBits === undefined && c.generation === undefined) fail('sliceBits', 'give sliceBits or generation');
  if (c.sliceBits !== undefined) {
    m = c.sliceBits;
    if (m < 2 * B) fail('sliceBits', `must hold at least two blocks of ${B} bits`);
    g = c.generation ?? Math.floor(blocked ? ((m / B) * halfFillLoad(B, b)) / K : (m * Math.LN2) / K);
  } else {
    g = c.generation!;
    const need = blocked ? Math.ceil(((g * K) / halfFillLoad(B, b)) * B) : Math.ceil((g * K) / Math.LN2);
    m = 2 ** Math.ceil(Math.log2(Math.max(need, 2 * B)));
  }
  if (g < 1) fail('sliceBits', `too small: the generation size floor(m·ln2/k) is ${g}`);
  const columnBits = m / b;
  const maxWord = Math.min(MAX_WORD_BITS, columnBits / 2); // a column needs depth >= 2
  if (c.wordBits !== undefined && c.wordBits > maxWord)
    fail('wordBits', `must be at most ${maxWord} (a column of m/b = ${columnBits} bits needs depth >= 2)`);
  // Clearing a retired bank takes depth + CLEAR_DELAY + 1 cycles; each spare buys g inserts (>= cycles).
  const sparesFor = (W: number): number => Math.max(1, Math.ceil((columnBits / W + CLEAR_DELAY + 1) / g));
  /** The narrowest word (a power of two, at least `from`) with which `spares` spares suffice. */
  const wordFor = (spares: number, from: number): number | null => {
    for (let W = from; W <= maxWord; W *= 2) if (sparesFor(W) <= spares) return W;
    return null;
  };
  // Default word: 16 bits (one SB_RAM40_4K port), wider only when even MAX_SPARES spares would not do.
  const W = c.wordBits ?? wordFor(MAX_SPARES, Math.min(16, maxWord)) ?? maxWord;
  const columnDepth = columnBits / W;
  const minSpares = sparesFor(W);
  if (minSpares > MAX_SPARES) {
    const wider = wordFor(MAX_SPARES, W);
    if (c.wordBits !== undefined && wider !== null)
      fail(
        'wordBits',
        `${W}-bit words cannot be cleared in time with at most ${MAX_SPARES} spares; use wordBits >= ${wider}`,
      );
    fail(
      c.generation !== undefined ? 'generation' : 'sliceBits',
      `a generation of g = ${g} inserts is too short to clear a bank of ${columnDepth} words of ${W} bits with at most ` +
        `${MAX_SPARES} spares (clearing takes ${columnDepth + CLEAR_DELAY + 1} cycles); use generation >= ` +
        `${Math.ceil((columnDepth + CLEAR_DELAY + 1) / MAX_SPARES)}` +
        (c.generation !== undefined ? '' : ' or a smaller sliceBits'),
    );
  }
  const spares = c.spares ?? minSpares;
  if (spares < minSpares) {
    const wider = wordFor(spares, W * 2);
    fail(
      'spares',
      `${spares} spare bank(s) cannot be cleared in time: clearing takes ${columnDepth + CLEAR_DELAY + 1} cycles ` +
        `(m/(b·W) = ${columnDepth} words + ${CLEAR_DELAY + 1}) but ${spares} generation(s) of g = ${g} inserts ` +
        `can pass first; use spares >= ${minSpares}` +
        (wider !== null ? ` or wordBits >= ${wider}` : ''),
    );
  }
  const d: ApbfDerived = {
    name: c.name,
    filter: c.filter,
    k: K,
    l: Lc,
    segmentBits: m,
    generation: g,
    blockBits: B,
    bitsPerBlock: b,
    keyBits: c.keyBits,
    seed: c.seed,
    spares,
    wordBits: W,
    tagBits: c.tagBits ?? DEFAULT_TAG_BITS,
    window: Lc * g,
    slack: K * g,
    columnDepth,
    target: c.target ?? DEFAULT_TARGET,
  };
  apbfLayout(d); // asserts the power-of-two relations
  return d;
}
