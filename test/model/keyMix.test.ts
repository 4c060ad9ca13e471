/** The key mix's reference (src/model/keyMix.ts): a keyed bijection, not affine, the fast form equal to it. */
import { describe, expect, it } from 'vitest';
import { fastSpnMix, keyMixer, mixPlan, SBOX3, SBOX4, spnMix } from '../../src/model/keyMix.js';

const mask = (bits: number): bigint => (1n << BigInt(bits)) - 1n;
/** Keys spread over the width (a multiplicative walk). */
const keys = (bits: number, n: number): bigint[] =>
  Array.from({ length: n }, (_, i) => (BigInt(i + 1) * 0x9e3779b97f4a7c15f39cc0605cedc835n) & mask(bits));

describe('key mix (SPN before H3)', () => {
  it('the S-boxes are bijections', () => {
    expect(new Set(SBOX4).size).toBe(16);
    expect(new Set(SBOX3).size).toBe(8);
  });

  it('is a bijection: every key of 8 to 13 bits maps to a distinct key of the same width', () => {
    for (let bits = 8; bits <= 13; bits++) {
      const p = mixPlan(bits, 3);
      const seen = new Set<bigint>();
      for (let k = 0n; k < 1n << BigInt(bits); k++) {
        const y = spnMix(k, p);
        expect(y >> BigInt(bits)).toBe(0n);
        seen.add(y);
      }
      expect(seen.size).toBe(1 << bits);
    }
  });

  it('rounds: ceil(log4 n) + 3', () => {
    expect(mixPlan(8, 1).rounds).toBe(5);
    expect(mixPlan(64, 1).rounds).toBe(6);
    expect(mixPlan(104, 1).rounds).toBe(7);
    expect(mixPlan(512, 1).rounds).toBe(8);
  });

  it('the permutation sends the four outputs of an S-box to four different S-boxes (n >= 16)', () => {
    for (const bits of [16, 33, 64, 104, 512]) {
      const { perm } = mixPlan(bits, 1);
      expect(new Set(perm).size).toBe(bits);
      for (let g = 0; g + 4 <= bits; g += 4) {
        const targets = new Set([0, 1, 2, 3].map((b) => Math.floor(perm[g + b]! / 4)));
        expect(targets.size, `width ${bits}, S-box ${g / 4}`).toBe(4);
      }
    }
  });

  it('is keyed by the seed', () => {
    const a = mixPlan(64, 1);
    const b = mixPlan(64, 2);
    const differ = keys(64, 100).filter((k) => spnMix(k, a) !== spnMix(k, b)).length;
    expect(differ).toBe(100);
  });

  it('is not affine over GF(2): mix(a ^ b) != mix(a) ^ mix(b) ^ mix(0) for most pairs (H3 alone would be)', () => {
    const p = mixPlan(64, 5);
    const ks = keys(64, 200);
    let affine = 0;
    for (let i = 0; i + 1 < ks.length; i += 2) {
      const a = ks[i]!;
      const b = ks[i + 1]!;
      if (spnMix(a ^ b, p) === (spnMix(a, p) ^ spnMix(b, p) ^ spnMix(0n, p))) affine++;
    }
    expect(affine).toBe(0);
  });

  it('low-weight key sets span every dimension after the mix (unmixed, counters span only their own bits: the structure H3 maps linearly)', () => {
    /** Rank over GF(2) of the differences from the first vector. */
    const rank = (vs: bigint[]): number => {
      const basis = new Map<number, bigint>(); // leading bit -> vector
      for (const v0 of vs) {
        let v = v0 ^ vs[0]!;
        while (v !== 0n) {
          const lead = v.toString(2).length - 1;
          const b = basis.get(lead);
          if (!b) {
            basis.set(lead, v);
            break;
          }
          v ^= b;
        }
      }
      return basis.size;
    };
    for (const bits of [64, 104, 128]) {
      const p = mixPlan(bits, 9);
      const sets: Record<string, bigint[]> = {
        'counters 0..4095': Array.from({ length: 4096 }, (_, i) => BigInt(i)),
        'counters 0..255': Array.from({ length: 256 }, (_, i) => BigInt(i)),
        'the top 8 bits': Array.from({ length: 256 }, (_, i) => BigInt(i) << BigInt(bits - 8)),
        '10 bits in the middle': Array.from({ length: 1024 }, (_, i) => BigInt(i) << 30n),
      };
      expect(rank(sets['counters 0..4095']!)).toBe(12);
      for (const [what, set] of Object.entries(sets))
        expect(rank(set.map((k) => spnMix(k, p))), `${bits} bits, ${what}`).toBe(bits);
    }
  });

  it('the fast form equals the reference for widths 8 to 512 (those of the schema and the edges)', () => {
    for (const bits of [8, 9, 10, 11, 12, 31, 32, 33, 48, 63, 64, 65, 100, 104, 128, 256, 511, 512]) {
      const p = mixPlan(bits, 11);
      const f = fastSpnMix(p);
      for (const k of [0n, mask(bits), ...keys(bits, 50)]) expect(f(k), `width ${bits}`).toBe(spnMix(k, p));
      // Bits above the width are not the key's, in both forms.
      const k = keys(bits, 1)[0]!;
      expect(f(k | (mask(bits + 40) ^ mask(bits))), `width ${bits}, high bits set`).toBe(spnMix(k, p));
    }
  });

  it("keyMixer: null for 'none' and when unset, the mix for 'spn'", () => {
    expect(keyMixer('none', 64, 1)).toBeNull();
    expect(keyMixer(undefined, 64, 1)).toBeNull();
    expect(keyMixer('spn', 64, 1)!(5n)).toBe(spnMix(5n, mixPlan(64, 1)));
  });
});
