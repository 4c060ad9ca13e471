/** The seeded random generator of workloads, samplers and stimulus. */
/** xorshift128+ on 2 x 64 bits (bigint, build-time use only) — deterministic from `seed`. */
export class Rng {
  private s0: bigint;
  private s1: bigint;
  constructor(seed: number) {
    this.s0 = (BigInt(seed >>> 0) * 0x9e3779b97f4a7c15n + 0x632be59bd9b4e019n) & ((1n << 64n) - 1n);
    this.s1 = ((this.s0 ^ 0xd1b54a32d192ed03n) * 0xaef17502108ef2d9n) & ((1n << 64n) - 1n);
    for (let i = 0; i < 4; i++) this.next64();
  }
  next64(): bigint {
    const M = (1n << 64n) - 1n;
    let x = this.s0;
    const y = this.s1;
    this.s0 = y;
    x ^= (x << 23n) & M;
    this.s1 = x ^ y ^ (x >> 17n) ^ (y >> 26n);
    return (this.s1 + y) & M;
  }
  bits(width: number): bigint {
    let v = 0n;
    for (let i = 0; i < width; i += 64) v |= this.next64() << BigInt(i);
    return v & ((1n << BigInt(width)) - 1n);
  }
  /** Uniform in [0, 1). */
  float(): number {
    return Number(this.next64() >> 11n) / 2 ** 53;
  }
}
