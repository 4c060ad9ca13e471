/**
 * H3 hash matrices (Carter & Wegman's class H3) and their software evaluation.
 *
 * Matrix generation is part of the public contract, because the models, the simulators and the
 * Verilog must agree bit for bit: row j (output bit j) is a keyWidth-bit mask drawn from a
 * SplitMix64 stream whose state starts at `(seed << 32) ^ salt ^ 0x5bf03635f0b1a8c3` (64 bits);
 * each row takes ceil(keyWidth/64) successive outputs, least significant word first, and is
 * masked to keyWidth bits. `seed` is the config's key (an adversary without it cannot aim keys at
 * chosen cells); `salt` tells apart the hash units of one design (e.g. one per slice).
 */

const M64 = (1n << 64n) - 1n;

export function splitMix64(state: bigint): { next: () => bigint } {
  let s = state & M64;
  return {
    next(): bigint {
      s = (s + 0x9e3779b97f4a7c15n) & M64;
      let z = s;
      z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
      z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
      return z ^ (z >> 31n);
    },
  };
}

/**
 * Matrices and byte tables are memoised (every model, simulator and design of a config asks for
 * the same ones, and a model is built afresh for every run): the last MEMO matrices, the oldest
 * dropped first, and each one's tables for as long as it is held (a 512-bit key's tables are
 * 64 KB, so at most some 16 MB). Both are shared, so frozen (the tables by contract: never
 * written). A matrix derived from one (masked, shifted) is a new array and gets tables of its own.
 */
const MEMO = 256;
const matrices = new Map<string, readonly bigint[]>();
const tables = new WeakMap<readonly bigint[], Map<number, Uint32Array>>();

export function h3Matrix(seed: number, salt: number, keyWidth: number, outWidth: number): readonly bigint[] {
  checkSeed(seed);
  const key = `${seed}:${salt >>> 0}:${keyWidth}:${outWidth}`;
  const known = matrices.get(key);
  if (known) return known;
  const rows = Object.freeze(buildH3Matrix(seed, salt, keyWidth, outWidth));
  if (matrices.size >= MEMO) matrices.delete(matrices.keys().next().value!);
  matrices.set(key, rows);
  return rows;
}

function checkSeed(seed: number): void {
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw new RangeError(`h3 seed must be an integer in 0..2^32-1, got ${seed}`);
  }
}

/** The matrix itself, built afresh (h3Matrix memoises it; the tests compare the two). */
export function buildH3Matrix(seed: number, salt: number, keyWidth: number, outWidth: number): bigint[] {
  checkSeed(seed);
  const rng = splitMix64((BigInt(seed) << 32n) ^ BigInt(salt >>> 0) ^ 0x5bf03635f0b1a8c3n);
  const words = Math.ceil(keyWidth / 64);
  const keyMask = (1n << BigInt(keyWidth)) - 1n;
  const rows: bigint[] = [];
  for (let j = 0; j < outWidth; j++) {
    let row = 0n;
    for (let w = 0; w < words; w++) row |= rng.next() << BigInt(64 * w);
    rows.push(row & keyMask);
  }
  return rows;
}

/** Direct definition: output bit j = parity(key & rows[j]). Slow; the reference. */
export function h3Reference(rows: readonly bigint[], key: bigint): bigint {
  let out = 0n;
  rows.forEach((row, j) => {
    let x = key & row;
    let parity = 0n;
    while (x !== 0n) {
      parity ^= x & 1n;
      x >>= 1n;
    }
    out |= parity << BigInt(j);
  });
  return out;
}

/**
 * Byte tables for the same function (outWidth <= 32): hash(key) = XOR over key bytes i of
 * table[i * 256 + byte_i]. H3 is linear over GF(2), so this is exact.
 */
export function h3Tables(rows: readonly bigint[], keyWidth: number): Uint32Array {
  if (rows.length > 32) throw new RangeError('h3Tables supports at most 32 output bits');
  let byWidth = tables.get(rows);
  if (!byWidth) tables.set(rows, (byWidth = new Map()));
  let t = byWidth.get(keyWidth);
  if (!t) byWidth.set(keyWidth, (t = buildTables(rows, keyWidth)));
  return t;
}

function buildTables(rows: readonly bigint[], keyWidth: number): Uint32Array {
  const nBytes = Math.ceil(keyWidth / 8);
  const t = new Uint32Array(nBytes * 256);
  for (let i = 0; i < nBytes; i++) {
    // Contribution of each single bit of byte i, then XOR-combine for all 256 byte values.
    const bitContrib: number[] = [];
    for (let b = 0; b < 8; b++) {
      const bit = BigInt(8 * i + b);
      let v = 0;
      rows.forEach((row, j) => {
        if ((row >> bit) & 1n) v |= 1 << j;
      });
      bitContrib.push(v >>> 0);
    }
    for (let byte = 1; byte < 256; byte++) {
      const low = byte & -byte;
      t[i * 256 + byte] = (t[i * 256 + (byte ^ low)]! ^ bitContrib[31 - Math.clz32(low)]!) >>> 0;
    }
  }
  return t;
}

/** Evaluate with tables on a key given as little-endian 32-bit words. */
export function h3FromWords(tables: Uint32Array, words: ArrayLike<number>, keyBytes: number): number {
  let h = 0;
  for (let i = 0; i < keyBytes; i++) {
    const byte = (words[i >>> 2]! >>> ((i & 3) * 8)) & 255;
    h ^= tables[i * 256 + byte]!;
  }
  return h >>> 0;
}
