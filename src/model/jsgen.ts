/**
 * Generating a family's compiled software filter (its `fast.ts`): the model's operations written
 * as JavaScript specialised to one config, so the bench's software side runs without allocation
 * per op.
 *
 * `packedH3`: the H3 byte tables of several hash units in one table — H3 is linear, so the hash
 *   of a key is the XOR of its bytes' table entries, and one pass over the key's bytes yields
 *   every unit's hash. Units of at most 16 bits are packed two per 32-bit entry. `code()` gives
 *   the statements that read the key (little-endian 32-bit words at `keys[off..]`) and define
 *   `const <unit name>` for each unit, equal to `h3(key, rows)` bit for bit.
 * `compileKeyOps`: functions `(keys, off) => …` from bodies of generated statements, with the
 *   given state bound by name (typed arrays the body reads and writes).
 */
import { h3Tables } from '../ir/h3.js';

export interface H3Unit {
  /** The identifier the generated code defines for this unit's hash. */
  name: string;
  /** The unit's H3 matrix (h3Matrix): one row per output bit, at most 32. */
  rows: readonly bigint[];
}

export interface PackedH3 {
  /** The combined table: entry (key byte i, value x) of packed word v at ((i·256 + x)·words + v). */
  readonly table: Uint32Array;
  /** Packed 32-bit words per table entry. */
  readonly words: number;
  /** Statements defining every unit's hash from the key at keys[off..], reading the table as `tableName`. */
  code(tableName?: string): string[];
}

export function packedH3(units: readonly H3Unit[], keyBits: number): PackedH3 {
  const keyBytes = Math.ceil(keyBits / 8);
  const keyWords = Math.ceil(keyBits / 32);
  const perWord = units.every((u) => u.rows.length <= 16) ? 2 : 1;
  const V = Math.ceil(units.length / perWord);
  const table = new Uint32Array(keyBytes * 256 * V);
  units.forEach((unit, slot) => {
    const t = h3Tables(unit.rows, keyBits);
    const v = Math.floor(slot / perWord);
    const shift = (slot % perWord) * 16;
    for (let e = 0; e < keyBytes * 256; e++) table[e * V + v] = (table[e * V + v]! ^ (t[e]! << shift)) >>> 0;
  });
  return {
    table,
    words: V,
    code(tableName = 'comb') {
      const out: string[] = [];
      for (let i = 0; i < keyWords; i++) out.push(`const k${i} = keys[off + ${i}];`);
      for (let v = 0; v < V; v++) out.push(`let a${v} = 0;`);
      for (let i = 0; i < keyBytes; i++) {
        out.push(`{ const x = (${i * 256} + ((k${i >> 2} >>> ${(i & 3) * 8}) & 255)) * ${V};`);
        for (let v = 0; v < V; v++) out.push(`a${v} ^= ${tableName}[x + ${v}];`);
        out.push('}');
      }
      units.forEach((unit, slot) => {
        const v = Math.floor(slot / perWord);
        const shift = (slot % perWord) * 16;
        const bits = unit.rows.length;
        out.push(
          bits === 32
            ? `const ${unit.name} = a${v} >>> 0;`
            : `const ${unit.name} = (a${v} >>> ${shift}) & ${(2 ** bits - 1) >>> 0};`,
        );
      });
      return out;
    },
  };
}

/** A generated operation on the key at keys[off..]. */
export type KeyOp = (keys: Uint32Array, off: number) => unknown;

/**
 * One function per body (`'use strict'`, parameters `keys`, `off`), each closing over `state`:
 * every entry is bound to its name, so a body reads `bits[…]` for `state.bits`.
 */
export function compileKeyOps<K extends string>(
  state: Readonly<Record<string, unknown>>,
  bodies: Readonly<Record<K, readonly string[]>>,
): Record<K, KeyOp> {
  const names = Object.keys(state);
  const values = names.map((n) => state[n]);
  const out = {} as Record<K, KeyOp>;
  for (const op of Object.keys(bodies) as K[]) {
    const src = bodies[op].join('\n');
    // The point of the module: code specialised to one config.
    const factory = new Function(...names, `'use strict'; return function (keys, off) {\n${src}\n};`) as (
      ...a: unknown[]
    ) => KeyOp;
    out[op] = factory(...values);
  }
  return out;
}

/** A line buffer for generated code: `e(line)` appends; `take(fill)` runs `fill` and returns the lines it appended. */
export function codeBuffer(): { e: (line: string) => void; take: (fill: () => void) => string[] } {
  let lines: string[] = [];
  return {
    e: (line) => void lines.push(line),
    take(fill) {
      const outer = lines;
      lines = [];
      fill();
      const got = lines;
      lines = outer;
      return got;
    },
  };
}
