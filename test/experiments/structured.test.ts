/**
 * Structured key workloads (src/model/workloads.ts) and `experiment structured-keys`: the key
 * sets have the shapes they claim, and the experiment finds what it reports — H3 alone departs
 * from the analysis on a structured workload, the key mix brings it back.
 */
import { describe, expect, it } from 'vitest';
import { STRUCTURED, structuredBits, structuredKey, structuredWorkload } from '../../src/model/workloads.js';
import { batchStats, structuredKeys } from '../../src/experiments/structured/experiments.js';
import { Rng } from '../../src/util/rng.js';

const popcount = (x: bigint): number => x.toString(2).replace(/0/g, '').length;

describe('structured key workloads', () => {
  it('sequential: counters; stream 1 a disjoint counter range', () => {
    expect([0, 1, 2].map((i) => structuredKey('sequential', i, 64, 0))).toEqual([0n, 1n, 2n]);
    expect(structuredKey('sequential', 0, 64, 1)).toBe(1n << 63n);
  });

  it('tuple: 104-bit IPv4 5-tuples, source in the top bits, TCP to 192.168.0.1:443', () => {
    const k = structuredKey('tuple', 16384 + 5, 104, 0);
    expect(k >> 72n).toBe(0x0a000001n); // 10.0.0.1 (the second host)
    expect((k >> 40n) & 0xffffffffn).toBe(0xc0a80001n);
    expect((k >> 24n) & 0xffffn).toBe(49152n + 5n);
    expect((k >> 8n) & 0xffffn).toBe(443n);
    expect(k & 0xffn).toBe(6n);
    expect(structuredKey('tuple', 0, 104, 1) >> 72n).toBe(0x0a800000n); // the other /16
  });

  it('gray: consecutive keys differ in exactly one bit', () => {
    for (let i = 0; i < 1000; i++)
      expect(popcount(structuredKey('gray', i, 64, 0) ^ structuredKey('gray', i + 1, 64, 0))).toBe(1);
  });

  it('prefix: one shared prefix above a 24-bit suffix, distinct keys, streams disjoint', () => {
    const a = Array.from({ length: 5000 }, (_, i) => structuredKey('prefix', i, 64, 0));
    const b = Array.from({ length: 5000 }, (_, i) => structuredKey('prefix', i, 64, 1));
    expect(new Set(a.map((k) => k >> 24n)).size).toBe(1);
    expect(new Set([...a, ...b]).size).toBe(10000);
  });

  it('every kind: keys fit keyBits, the two streams are disjoint', () => {
    for (const kind of STRUCTURED)
      for (const bits of [24, 64, 104].filter((b) => b >= structuredBits(kind))) {
        const a = Array.from({ length: 2000 }, (_, i) => structuredKey(kind, i, bits, 0));
        const b = Array.from({ length: 2000 }, (_, i) => structuredKey(kind, i, bits, 1));
        for (const k of [...a, ...b]) expect(k >> BigInt(bits), `${kind} ${bits}`).toBe(0n);
        const s = new Set(a);
        expect(
          b.some((k) => s.has(k)),
          `${kind} ${bits}`,
        ).toBe(false);
      }
  });

  it('a workload walks stream 0', () => {
    const w = structuredWorkload('gray', 64);
    const rng = new Rng(1);
    expect([w.nextKey(rng), w.nextKey(rng)]).toEqual([0, 1].map((i) => structuredKey('gray', i, 64, 0)));
  });
});

describe('experiment structured-keys', () => {
  it('batch means: the mean of the batches and the standard error of their spread', () => {
    expect(batchStats([10, 10, 10, 10], 100)).toEqual({ fp: 0.1, se: 0 });
    const s = batchStats([0, 20], 100);
    expect(s.fp).toBeCloseTo(0.1, 12);
    expect(s.se).toBeCloseTo(Math.sqrt(0.02 / 2), 12);
  });

  it('A² (k 3, 512-bit banks), sequential keys: H3 alone is flagged far above the analysis; with the key mix nothing is flagged', () => {
    const [none] = structuredKeys(['a2_k3_b512'], 5000, 'none');
    const [spn] = structuredKeys(['a2_k3_b512'], 5000, 'spn');
    const seq = (r: typeof none) => r!.workloads.find((w) => w.workload === 'sequential')!;
    const randomOf = (r: typeof none) => r!.workloads.find((w) => w.workload === 'random')!;
    expect(seq(none).harmful).toBe(true);
    // Some stretch of the run answers yes far more often than random keys ever make it.
    expect(seq(none).worst).toBeGreaterThan(2 * randomOf(none).worst);
    expect(spn!.workloads.filter((w) => w.harmful)).toEqual([]);
    expect(Math.abs(seq(spn).fp - randomOf(spn).fp)).toBeLessThan(0.02);
    expect(seq(spn).worst).toBeLessThan(1.3 * randomOf(spn).worst);
  });
});
