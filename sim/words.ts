/** Conversions between bigint values and little-endian 32-bit word arrays. */
export function toWords(value: bigint, width: number): Uint32Array {
  const n = Math.ceil(width / 32);
  const out = new Uint32Array(n);
  let v = value & ((1n << BigInt(width)) - 1n);
  for (let i = 0; i < n; i++) {
    out[i] = Number(v & 0xffffffffn);
    v >>= 32n;
  }
  return out;
}

export function fromWords(arr: ArrayLike<number>, offset: number, width: number): bigint {
  let v = 0n;
  for (let i = Math.ceil(width / 32) - 1; i >= 0; i--) v = (v << 32n) | BigInt(arr[offset + i]! >>> 0);
  return v;
}
