/**
 * The key mix (`keyMix: "spn"`, issue 23 item 6): a keyed, non-linear bijection on keyBits-bit
 * keys applied before the H3 hashes, so that structured key sets (counters, 5-tuples, keys
 * differing in one bit) stop mapping to structured sets of positions.
 *
 * Why it is needed: H3 is linear over GF(2). For a fixed matrix, a query key q and an inserted
 * set S with q ⊕ S a coset of a subspace (sequential counters, a /16 of 5-tuples, a Gray-code
 * run) either collide with S in every hash or in none, for all queries of the same shape at once
 * — the false-positive rate of one config is then 0 or far above the analysis
 * (`npx bloomforge experiment structured-keys`). A non-linear mix breaks the coset structure.
 *
 * The mix is a small substitution–permutation network, the shape of lightweight block ciphers
 * (PRESENT, Bogdanov et al., CHES 2007, whose 4-bit S-box it uses): per round, XOR a round key
 * derived from the config's seed, pass every 4-bit group through the S-box (the last 1–3 bits of
 * a key that is not a multiple of 4 through a 3-bit S-box, or XOR only), and permute the bits as
 * PRESENT does — bit b of S-box j to position b·⌈n/4⌉ + j, generalised to any n — which sends the
 * four outputs of one S-box to four different S-boxes (n ≥ 16). Rounds: ⌈log4 n⌉ + 3. ⌈log4 n⌉
 * rounds let every key bit reach every position; with one more, counters and other low-weight key
 * sets still map into a subspace of fewer than n dimensions (4096 counters: 41 of 64 with
 * ⌈log4 n⌉ + 1 rounds, 62 with + 2), and with + 3 they span all n for the sets
 * test/model/keyMix.test.ts checks (64, 104 and 128 bits). It is not a cipher (no security claim); it is a cheap,
 * exactly specified, keyed bijection the hardware computes in one LUT4 level per round
 * (src/transforms/keyMix.ts), and the model here computes bit for bit.
 */

/** PRESENT's 4-bit S-box. */
export const SBOX4 = [0xc, 0x5, 0x6, 0xb, 0x9, 0x0, 0xa, 0xd, 0x3, 0xe, 0xf, 0x8, 0x4, 0x7, 0x1, 0x2] as const;
/** A 3-bit bijection of algebraic degree 2 (PRINTcipher's S-box). */
export const SBOX3 = [0, 1, 3, 6, 7, 4, 5, 2] as const;

export const KEY_MIXES = ['none', 'spn'] as const;
export type KeyMix = (typeof KEY_MIXES)[number];
/**
 * A config's key mix when it names none: the mix for keys up to 128 bits, none for wider ones.
 * Chosen from the figures (README, "Structured keys"): with H3 alone, structured key sets gave
 * false-positive rates far from the analysis on several presets, in both directions; the mix
 * removes it for +394 LUTs (+19 %) and no cycle on APBF (4, 3) with 64-bit keys. Its cost grows
 * as n·(⌈log4 n⌉ + 3) LUT4s: 896 at 128 bits, 4096 at 512 (more than most filters), and keys
 * that wide are usually digests already.
 */
export function defaultKeyMix(keyBits: number): KeyMix {
  return keyBits <= 128 ? 'spn' : 'none';
}

const M64 = (1n << 64n) - 1n;
function mix64(x: bigint): bigint {
  let z = (x + 0x9e3779b97f4a7c15n) & M64;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
  return z ^ (z >> 31n);
}

export interface MixPlan {
  bits: number;
  rounds: number;
  /** Round keys, `bits` wide each. */
  roundKeys: bigint[];
  /** Output position of input bit i after the S-box layer. */
  perm: number[];
}

/** The mix's rounds, round keys and permutation for a key width and seed. */
export function mixPlan(bits: number, seed: number): MixPlan {
  const rounds = Math.ceil(Math.log(bits) / Math.log(4)) + 3;
  // Bit i goes to its rank in the order of (i mod 4, ⌊i/4⌋): bit b of every S-box, then bit b + 1, …
  // (PRESENT's permutation for 64 bits, generalised to any width).
  const perm = new Array<number>(bits);
  let next = 0;
  for (let b = 0; b < 4; b++) for (let i = b; i < bits; i += 4) perm[i] = next++;
  const mask = (1n << BigInt(bits)) - 1n;
  const roundKeys = Array.from({ length: rounds }, (_, r) => {
    let k = 0n;
    for (let j = 0; j * 64 < bits; j++)
      k |= mix64((BigInt(seed >>> 0) << 24n) ^ (BigInt(r) << 8n) ^ BigInt(j) ^ 0x6b65796d69780000n) << BigInt(64 * j);
    return k & mask;
  });
  return { bits, rounds, roundKeys, perm };
}

/** One S-box layer on `bits` bits. */
function substitute(x: bigint, bits: number): bigint {
  let y = 0n;
  let i = 0;
  for (; i + 4 <= bits; i += 4) y |= BigInt(SBOX4[Number((x >> BigInt(i)) & 15n)]!) << BigInt(i);
  const rest = bits - i;
  if (rest === 3) y |= BigInt(SBOX3[Number((x >> BigInt(i)) & 7n)]!) << BigInt(i);
  else if (rest > 0) y |= x & (((1n << BigInt(rest)) - 1n) << BigInt(i));
  return y;
}

function permute(x: bigint, perm: readonly number[]): bigint {
  let y = 0n;
  for (let i = 0; i < perm.length; i++) if ((x >> BigInt(i)) & 1n) y |= 1n << BigInt(perm[i]!);
  return y;
}

/** The mixed key (a bijection on keyBits-bit keys, keyed by the seed). */
export function spnMix(key: bigint, p: MixPlan): bigint {
  let x = key;
  for (let r = 0; r < p.rounds; r++) x = permute(substitute(x ^ p.roundKeys[r]!, p.bits), p.perm);
  return x;
}

/**
 * `spnMix` on 32-bit words (numbers, not bigints: for the model and the software filter, which
 * mix every key); equal to `spnMix` (tested). A round's S-boxes act within a byte (a 4-bit group
 * starts at a multiple of 4) and the permutation is linear, so both are one table per byte
 * position: byte q's 256 values to the W words of the permuted, substituted byte. A round is then
 * the round key's XOR and one lookup per byte and word.
 */
export function fastSpnMix(p: MixPlan): (key: bigint) => bigint {
  const n = p.bits;
  const W = Math.ceil(n / 32);
  const B = Math.ceil(n / 8);
  /** One 4-bit group at bit `start` (its bits in `v`): the S-box, the 3-bit one, or none. */
  const box = (start: number, v: number): number => {
    // (Bits at n and above are not the key's: a wider argument's are ignored, as spnMix does.)
    const rest = n - start;
    if (rest >= 4) return SBOX4[v]!;
    if (rest === 3) return SBOX3[v & 7]!;
    return rest > 0 ? v & ((1 << rest) - 1) : 0;
  };
  const table = new Uint32Array(B * 256 * W);
  for (let q = 0; q < B; q++)
    for (let v = 0; v < 256; v++) {
      const s = box(8 * q, v & 15) | (box(8 * q + 4, v >> 4) << 4);
      const at = (q * 256 + v) * W;
      for (let b = 0; b < 8; b++) {
        const i = 8 * q + b;
        if (i >= n || !((s >> b) & 1)) continue;
        const to = p.perm[i]!;
        table[at + (to >>> 5)] = (table[at + (to >>> 5)]! | (1 << (to & 31))) >>> 0;
      }
    }
  const rk = p.roundKeys.map((k) =>
    Uint32Array.from({ length: W }, (_, w) => Number((k >> BigInt(32 * w)) & 0xffffffffn)),
  );
  const x = new Uint32Array(W);
  const y = new Uint32Array(W);
  return (key) => {
    if (W <= 2) {
      // Up to 64 bits: the words in two numbers, no arrays in the loop.
      let lo = Number(key & 0xffffffffn);
      let hi = W === 2 ? Number((key >> 32n) & 0xffffffffn) : 0;
      for (let r = 0; r < p.rounds; r++) {
        const k = rk[r]!;
        const a = (lo ^ k[0]!) >>> 0;
        const c = W === 2 ? (hi ^ k[1]!) >>> 0 : 0;
        let ylo = 0;
        let yhi = 0;
        for (let q = 0; q < B; q++) {
          const v = q < 4 ? (a >>> (8 * q)) & 255 : (c >>> (8 * (q - 4))) & 255;
          const at = (q * 256 + v) * W;
          ylo ^= table[at]!;
          if (W === 2) yhi ^= table[at + 1]!;
        }
        lo = ylo >>> 0;
        hi = yhi >>> 0;
      }
      return W === 2 ? (BigInt(hi) << 32n) | BigInt(lo) : BigInt(lo);
    }
    for (let w = 0; w < W; w++) x[w] = Number((key >> BigInt(32 * w)) & 0xffffffffn);
    for (let r = 0; r < p.rounds; r++) {
      const k = rk[r]!;
      for (let w = 0; w < W; w++) x[w] = x[w]! ^ k[w]!;
      y.fill(0);
      for (let q = 0; q < B; q++) {
        const at = (q * 256 + ((x[q >>> 2]! >>> (8 * (q & 3))) & 255)) * W;
        for (let w = 0; w < W; w++) y[w] = y[w]! ^ table[at + w]!;
      }
      x.set(y);
    }
    let out = 0n;
    for (let w = W - 1; w >= 0; w--) out = (out << 32n) | BigInt(x[w]!);
    return out;
  };
}

/** A function mixing keys of one config (the plan computed once). */
export function keyMixer(mix: KeyMix | undefined, bits: number, seed: number): ((key: bigint) => bigint) | null {
  if (mix !== 'spn') return null;
  return fastSpnMix(mixPlan(bits, seed));
}
