/**
 * Stage: H3 hashing of a key with the XOR trees cut by a register (a key chunk per piece).
 *
 * `chunkedH3`: the H3 hash of `key` to `bits` bits (1..32), computed per chunk of `chunkBits`
 *   key bits. Each chunk's hash (an XOR tree over at most `chunkBits` key bits per output bit) is
 *   registered: `<name>` when there is one chunk, `<name>_part<q>` otherwise. The registered
 *   pieces are XORed by `xorTree` after the register. Latency 1: the result is combinational
 *   logic on registers. Guarantee: the value is exactly `m.h3(key, bits, { seed, salt })` of the
 *   key one cycle earlier (H3 is linear: the hashes of a partition of the key bits XOR to the
 *   hash of the key).
 * `wideH3`: a hash wider than one H3 unit as several `chunkedH3` units (unit u is `<name><u>`,
 *   salted by `salt(u)`, the first unit in the low bits), concatenated and registered again
 *   (`<name>`). Latency 2, every output bit a register.
 * `xorTree`: the XOR of its inputs as a balanced tree of 4-input groups, no registers.
 */
import type { ModuleBuilder, Sig } from '../dsl/module.js';

/**
 * XOR of `xs` as a balanced tree of 4-input groups: 16 registered hash pieces are two LUT4
 * levels. (Written as a chain, p0 ^ p1 ^ ... ^ p15, Yosys's ABC mapping left four levels on the
 * APBBF's critical path.)
 */
export function xorTree(xs: readonly Sig[]): Sig {
  let level = [...xs];
  while (level.length > 1) {
    const next: Sig[] = [];
    for (let i = 0; i < level.length; i += 4) {
      const g = level.slice(i, i + 4);
      next.push(
        g.length >= 3 ? g[0]!.xor(g[1]!).xor(g.slice(2).reduce((x, y) => x.xor(y))) : g.reduce((x, y) => x.xor(y)),
      );
    }
    level = next;
  }
  return level[0]!;
}

export interface ChunkedH3Options {
  key: Sig;
  /** Output bits, 1..32. */
  bits: number;
  seed: number;
  salt: number;
  /** Key bits per registered piece (default: the whole key, one piece). */
  chunkBits?: number;
  /** Register name of the piece (one chunk) or prefix of the pieces' names. */
  name: string;
}

/** H3 of the key registered one cycle ago, its XOR tree cut by a register after `chunkBits` key bits. */
export function chunkedH3(m: ModuleBuilder, o: ChunkedH3Options): Sig {
  const chunkBits = o.chunkBits ?? o.key.width;
  const chunks = Math.ceil(o.key.width / chunkBits);
  const parts = Array.from({ length: chunks }, (_, q) => {
    const lo = chunkBits * q;
    const hi = Math.min(o.key.width, lo + chunkBits);
    const keyMask = ((1n << BigInt(hi - lo)) - 1n) << BigInt(lo);
    const part = m.h3(o.key, o.bits, { seed: o.seed, salt: o.salt, keyMask });
    return m.pipe(part, 1, chunks === 1 ? o.name : `${o.name}_part${q}`, { reset: null });
  });
  return xorTree(parts);
}

export interface WideH3Options {
  key: Sig;
  /** Output bits (any width; split into units of at most `unitBits`). */
  bits: number;
  /** Bits per H3 unit, at most 32. */
  unitBits: number;
  seed: number;
  /** Salt of unit u. */
  salt: (unit: number) => number;
  chunkBits?: number;
  name: string;
}

/** A `bits`-bit hash as units of `unitBits` (unit 0 in the low bits), each chunked, then registered whole. */
export function wideH3(m: ModuleBuilder, o: WideH3Options): Sig {
  // Unit u's registers are named name + u; a name ending in a digit gets a '_' first, so that
  // `hash1` unit 0 and `hash10` (k > 10) cannot both be `hash10`.
  const sep = /[0-9]$/.test(o.name) ? '_' : '';
  const units = Array.from({ length: Math.ceil(o.bits / o.unitBits) }, (_, u) =>
    chunkedH3(m, {
      key: o.key,
      bits: Math.min(o.unitBits, o.bits - o.unitBits * u),
      seed: o.seed,
      salt: o.salt(u),
      chunkBits: o.chunkBits,
      name: `${o.name}${sep}${u}`,
    }),
  );
  return m.pipe(m.cat(...units.reverse()), 1, o.name, { reset: null });
}
