/**
 * Filter configs: schema validation (zod) and derivation of every parameter the model and the
 * RTL need. Every invalid field gives a one-line error naming it (ConfigError, exit 2).
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
import { apbfLayout } from './model.js';
import { CLEAR_DELAY } from '../../stages/clear.js';
import type { ApbfDerived } from './types.js';
import { plan } from './planner.js';

export class ConfigError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const positiveInt = (max: number) => z.number().int().min(1).max(max);
const pow2 = (max: number) =>
  positiveInt(max).refine((v) => Number.isInteger(Math.log2(v)), { message: 'must be a power of two' });

export const ApbfConfigSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a legal Verilog identifier'),
    filter: z.enum(['apbf', 'apbbf']),
    k: positiveInt(64).optional(),
    l: positiveInt(256).optional(),
    window: positiveInt(1 << 26).optional(),
    fp: z.number().gt(0).lt(1).optional(),
    maxNpws: z.number().gt(0).optional(),
    maxSlack: positiveInt(1 << 30).optional(),
    sliceBits: pow2(1 << 24).optional(),
    generation: positiveInt(1 << 24).optional(),
    blockBits: pow2(4096).optional(),
    bitsPerBlock: pow2(64).optional(),
    keyBits: z.number().int().min(8).max(512),
    seed: z.number().int().min(0).max(0xffffffff),
    tagBits: z.number().int().min(1).max(32).optional(),
    wordBits: pow2(4096).optional(),
    spares: z.number().int().min(1).max(8).optional(),
    target: z.enum(['ice40-hx8k', 'ice40-up5k', 'ecp5', 'xilinx']).optional(),
    description: z.string().optional(),
  })
  .strict();

export type ApbfConfig = z.infer<typeof ApbfConfigSchema>;

/** The first problem of a failed schema check, as one line naming the field. */
export function zodMessage(e: z.ZodError): string {
  const issue = e.issues[0]!;
  const field = issue.path.length ? issue.path.join('.') : '(config)';
  if (issue.code === 'unrecognized_keys') return `unknown field '${issue.keys.join("', '")}'`;
  return `field '${field}': ${issue.message}`;
}

/** Half-fill load of a block: elements per block when each of its parts of B/b bits is half set. */
export function halfFillLoad(blockBits: number, bitsPerBlock: number): number {
  return Math.LN2 / -Math.log1p(-bitsPerBlock / blockBits);
}

export function zeroStallBound(d: { columnDepth: number; spares: number; generation: number }): boolean {
  return d.columnDepth + CLEAR_DELAY + 1 <= d.spares * d.generation;
}

export function deriveApbf(raw: unknown, source = 'config'): ApbfDerived {
  const parsed = ApbfConfigSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(`${source}: ${zodMessage(parsed.error)}`);
  const c = parsed.data;
  const fail = (field: string, msg: string): never => {
    throw new ConfigError(`${source}: field '${field}': ${msg}`);
  };
  if (c.k === undefined || c.l === undefined) {
    if (c.window === undefined || c.fp === undefined) {
      fail(c.k === undefined ? 'k' : 'l', 'give k and l, or window and fp for the planner');
    }
    if (
      c.blockBits !== undefined ||
      c.bitsPerBlock !== undefined ||
      c.sliceBits !== undefined ||
      c.generation !== undefined
    ) {
      fail(
        'window',
        'with window and fp the planner chooses every size; leave out sliceBits, generation, blockBits, bitsPerBlock',
      );
    }
    let chosen: ApbfDerived;
    try {
      chosen = plan({
        filter: c.filter,
        window: c.window!,
        fp: c.fp!,
        maxNpws: c.maxNpws,
        maxSlack: c.maxSlack,
        target: c.target,
        keyBits: c.keyBits,
        seed: c.seed,
        name: c.name,
      }).winner.config;
    } catch (e) {
      throw new ConfigError(`${source}: ${(e as Error).message}`);
    }
    return {
      ...chosen,
      tagBits: c.tagBits ?? 8,
      planned: { window: c.window!, fp: c.fp!, maxNpws: c.maxNpws, maxSlack: c.maxSlack },
    };
  }
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
  const defaultWord = Math.min(16, columnBits / 2);
  const W = c.wordBits ?? defaultWord;
  if (W > columnBits / 2)
    fail('wordBits', `must be at most ${columnBits / 2} (a column of m/b = ${columnBits} bits needs depth >= 2)`);
  const columnDepth = columnBits / W;
  const minSpares = Math.max(1, Math.ceil((columnDepth + CLEAR_DELAY + 1) / g));
  const spares = c.spares ?? minSpares;
  if (spares < minSpares) {
    fail(
      'spares',
      `${spares} spare bank(s) cannot be cleared in time: clearing takes ${columnDepth + CLEAR_DELAY + 1} cycles ` +
        `(m/(b·W) = ${columnDepth} words + ${CLEAR_DELAY + 1}) but ${spares} generation(s) of g = ${g} inserts ` +
        `can pass first; use spares >= ${minSpares} or a wider wordBits`,
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
    tagBits: c.tagBits ?? 8,
    window: Lc * g,
    slack: K * g,
    columnDepth,
    target: c.target ?? 'ice40-hx8k',
  };
  apbfLayout(d); // asserts the power-of-two relations
  return d;
}
