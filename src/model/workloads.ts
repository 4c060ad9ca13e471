/**
 * Key streams for verification, simulation, experiments and benches: uniform and Zipf over a
 * universe, all-distinct, or a list from a file. Keys look random (a bijective mix of the key
 * number): H3 is linear, so small integers or a constant XOR small integers would land in a
 * low-dimensional subspace of the hash space and collide in structured ways.
 */
import { UsageError } from '../util/errors.js';
import type { Rng } from '../util/rng.js';

export interface Workload {
  /** Next key to use (a bigint of at most keyBits bits). */
  nextKey(rng: Rng): bigint;
}

const M64 = (1n << 64n) - 1n;

/** SplitMix64's finaliser: a bijection on 64-bit words. */
function mix64(x: bigint): bigint {
  let z = (x + 0x9e3779b97f4a7c15n) & M64;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
  return z ^ (z >> 31n);
}

/**
 * Key number i of a workload's universe as a random-looking keyBits-bit key. Keys must not be
 * small integers or a constant XOR small integers: H3 is linear, so such key sets land in a
 * low-dimensional subspace of the hash space and collide in structured ways.
 */
export function keyOfIndex(i: number, keyBits: number, salt: number): bigint {
  let key = 0n;
  for (let j = 0; j * 64 < keyBits; j++) key |= mix64(BigInt(i) * 0x100n + BigInt(salt * 16 + j)) << BigInt(64 * j);
  return key & ((1n << BigInt(keyBits)) - 1n);
}

export function uniformWorkload(keyBits: number, universe: number): Workload {
  const keys = Array.from({ length: Math.min(universe, 1 << 20) }, (_, i) => keyOfIndex(i, keyBits, 1));
  return {
    nextKey: (rng) => {
      const i = Math.floor(rng.float() * universe);
      return i < keys.length ? keys[i]! : keyOfIndex(i, keyBits, 1);
    },
  };
}

/** Zipf(s) over `universe` keys by inverse CDF (rank 1 most frequent). */
export function zipfWorkload(keyBits: number, universe: number, s = 1): Workload {
  const cdf = new Float64Array(universe);
  let acc = 0;
  for (let i = 0; i < universe; i++) cdf[i] = acc += 1 / (i + 1) ** s;
  const keys = Array.from({ length: Math.min(universe, 1 << 20) }, (_, i) => keyOfIndex(i, keyBits, 2));
  return {
    nextKey: (rng) => {
      const u = rng.float() * acc;
      let lo = 0;
      let hi = universe - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (cdf[mid]! < u) lo = mid + 1;
        else hi = mid;
      }
      return lo < keys.length ? keys[lo]! : keyOfIndex(lo, keyBits, 2);
    },
  };
}

/** Every key new (a counter through a bijective mix, so keys look random). */
export function distinctWorkload(keyBits: number, start = 0): Workload {
  let i = BigInt(start);
  const mask = (1n << BigInt(keyBits)) - 1n;
  return { nextKey: () => ((i++ * 0x9e3779b97f4a7c15n) ^ 0x5bd1e995n) & mask };
}

/** Keys from a list (a workload file), cycling. */
export function listWorkload(keys: bigint[]): Workload {
  let i = 0;
  return { nextKey: () => keys[i++ % keys.length]! };
}

/**
 * Structured key families (issue 23 item 6): keys as real traffic has them, which a linear hash
 * (H3) may treat differently from random keys.
 *   sequential  counter values i;
 *   tuple       IPv4 5-tuples (src IP, dst IP, src port, dst port, protocol; 104 bits, the
 *               source address in the most significant bits) from hosts of one /16 with
 *               consecutive ephemeral ports, to one server on port 443 over TCP;
 *   gray        a Gray-code counter XOR a random base: consecutive keys differ in one bit;
 *   prefix      a random prefix shared by every key above a 23-bit suffix that runs through a
 *               bijection of i.
 * `stream` 0 and 1 give two disjoint key sets of the same shape (keys to insert, fresh keys to
 * query): counters from 0 or from 2^(keyBits−1), another /16, another base, another suffix bit. Keys wider than keyBits keep
 * their low keyBits bits (a 5-tuple needs keyBits >= 104 to stay whole).
 */
export const STRUCTURED = ['sequential', 'tuple', 'gray', 'prefix'] as const;
export type StructuredKind = (typeof STRUCTURED)[number];

/** Bits a structured key needs to stay whole. */
export function structuredBits(kind: StructuredKind): number {
  return kind === 'tuple' ? 104 : 24;
}

export function structuredKey(kind: StructuredKind, i: number, keyBits: number, stream: 0 | 1): bigint {
  const mask = (1n << BigInt(keyBits)) - 1n;
  const n = BigInt(i);
  const s = BigInt(stream);
  switch (kind) {
    case 'sequential':
      return ((s << BigInt(keyBits - 1)) + n) & mask;
    case 'tuple': {
      const src = 0x0a000000n + (s << 23n) + (n >> 14n); // 10.0.0.0/16, or 10.128.0.0/16
      const sport = 49152n + (n & 0x3fffn);
      const dst = 0xc0a80001n; // 192.168.0.1
      return ((src << 72n) | (dst << 40n) | (sport << 24n) | (443n << 8n) | 6n) & mask;
    }
    case 'gray': {
      const base = mix64(0x6772617900n) & mask;
      const top = keyBits > 1 ? 1n << BigInt(keyBits - 1) : 0n;
      return (base ^ (s === 1n ? top : 0n) ^ (n ^ (n >> 1n))) & mask;
    }
    case 'prefix': {
      const prefix = (mix64(0x7072656600n) << 24n) & mask;
      const suffix = (n * 0x2c9277bn) & 0x7fffffn; // odd multiplier: a bijection on 23 bits
      return (prefix | (s << 23n) | suffix) & mask;
    }
  }
}

/** A structured workload: key i of stream 0 in turn. */
export function structuredWorkload(kind: StructuredKind, keyBits: number): Workload {
  let i = 0;
  return { nextKey: () => structuredKey(kind, i++, keyBits, 0) };
}

/**
 * A workload by name — uniform, zipf, distinct, a structured one (sequential, tuple, gray,
 * prefix) — or a file of keys (one per line, decimal or 0x
 * hex, # comments), already read; errors name the file and line.
 */
export function namedWorkload(
  spec: string,
  keyBits: number,
  universe: number,
  readFile: (spec: string) => string,
): Workload {
  if (spec === 'uniform') return uniformWorkload(keyBits, universe);
  if (spec === 'zipf') return zipfWorkload(keyBits, universe);
  if (spec === 'distinct') return distinctWorkload(keyBits);
  if ((STRUCTURED as readonly string[]).includes(spec)) return structuredWorkload(spec as StructuredKind, keyBits);
  const keys: bigint[] = [];
  const text = readFile(spec);
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x08\x0e-\x1f\x7f]/.test(text))
    throw new UsageError(`--workload ${spec}: not a text file (one key per line, decimal or 0x hex)`);
  text.split('\n').forEach((line, i) => {
    const t = line.trim();
    if (t === '' || t.startsWith('#')) return;
    if (!/^(0x[0-9a-fA-F]+|\d+)$/.test(t))
      throw new UsageError(
        `--workload ${spec}:${i + 1}: ${JSON.stringify(t.length > 40 ? `${t.slice(0, 40)}…` : t)} is not a key (decimal or 0x hex)`,
      );
    const k = BigInt(t);
    if (k >> BigInt(keyBits) !== 0n)
      throw new UsageError(`--workload ${spec}:${i + 1}: key wider than keyBits = ${keyBits}`);
    keys.push(k);
  });
  if (keys.length === 0) throw new UsageError(`--workload ${spec}: no keys`);
  return listWorkload(keys);
}
