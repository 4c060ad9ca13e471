/**
 * WebAssembly binary encoding, the subset bloomforge's generated modules use (the simulator's
 * cycle loop, sim/wasm.ts, and compiled software filters): LEB128 integers, names, sections.
 */

/** Unsigned LEB128 (n < 2^32). */
export const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
};

/** Signed LEB128 of an i32. */
export const sleb = (x: number): number[] => {
  let n = x | 0;
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
};

/** A name: its UTF-8 length, then its bytes. */
export const str = (s: string): number[] => [...uleb(s.length), ...Buffer.from(s, 'utf8')];

/** A section: id, byte length, body. */
export const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];

/** The module header: magic and version 1. */
export const WASM_HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00] as const;
