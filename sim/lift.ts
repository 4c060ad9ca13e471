/**
 * Word-level lifting of bit-blasted logic, for the compiled simulator's clock-cycle function.
 *
 * Generators often build a vector one bit at a time: a concat of 1-bit muxes, gates and bit
 * selects (a thermometer code shifted by one place, a per-bit enable). Evaluated as written
 * that is a handful of operations per bit. When the 1-bit cells feeding a concat are read
 * nowhere else, the same value is one word-wide expression: 16 muxes on one select become
 * `sel ? T : F` over two 16-bit words, and the bit selects `x[j + d]` at positions j become a
 * shift and a mask of x. The planner groups a concat's 1-bit parts by the cell driving them
 * (same kind, same select or operator), recurses into each group's operands, and turns what is
 * left into shifted, masked words of the sources. The absorbed cells are then not evaluated.
 *
 * Only the values of the concat outputs are kept: an absorbed cell's own net is not computed,
 * so the plan is used where no one reads it (the `run` loop), not in `settle`.
 */
import { driverMap } from '../src/ir/topo.js';
import { cellInputs, type Cell, type ConcatCell, type Design, type NetId } from '../src/ir/types.js';

/** A part of a lifted word: its bits are zero outside the positions it covers. */
export type Lift =
  /** `sel` is bit `selBit` of net `sel`. */
  | {
      readonly k: 'mux';
      readonly sel: NetId;
      readonly selBit: number;
      readonly t: readonly Lift[];
      readonly f: readonly Lift[];
    }
  | {
      readonly k: 'bitwise';
      readonly op: 'and' | 'or' | 'xor';
      readonly a: readonly Lift[];
      readonly b: readonly Lift[];
    }
  | { readonly k: 'not'; readonly a: readonly Lift[]; readonly mask: number }
  /** Bits [lo, lo + len) of `src`, masked by `mask` (relative to lo), placed at bit `at`. */
  | {
      readonly k: 'bits';
      readonly src: NetId;
      readonly lo: number;
      readonly len: number;
      readonly mask: number;
      readonly at: number;
    }
  | { readonly k: 'ones'; readonly value: number };

export interface LiftPlan {
  /** Per concat cell, per output word: the parts (ORed) of the 1-bit parts' value, or null. */
  readonly words: ReadonlyMap<ConcatCell, readonly (readonly Lift[] | null)[]>;
  /** Cells whose only reader is inside a lifted expression: not evaluated. */
  readonly absorbed: ReadonlySet<Cell>;
}

/** How deep the planner follows 1-bit cells behind a concat. */
const MAX_DEPTH = 8;

interface Item {
  /** Bit position in the output word. */
  readonly pos: number;
  readonly net: NetId;
}

export function planLifts(d: Design): LiftPlan {
  const driver = driverMap(d);
  const fanout = new Map<NetId, number>();
  const read = (n: NetId): void => void fanout.set(n, (fanout.get(n) ?? 0) + 1);
  for (const c of d.cells) cellInputs(c).forEach(read);
  for (const p of d.outputs) read(p.net);
  const width = (n: NetId): number => d.nets[n]!.width;
  const absorbed = new Set<Cell>();
  const mask = (items: readonly Item[]): number => items.reduce((m, x) => (m | (1 << x.pos)) >>> 0, 0);

  // A 1-bit net as bit `bit` of net `src`: of the sliced net when a slice drives it (generators
  // select the same bit again and again, one slice cell per use), else bit 0 of itself.
  const bitOf = (n: NetId): { src: NetId; bit: number; slice: Cell | null } => {
    const c = driver.get(n);
    return c?.kind === 'slice' ? { src: c.a, bit: c.lo, slice: c } : { src: n, bit: 0, slice: null };
  };
  const lift = (items: readonly Item[], depth: number): Lift[] => {
    const groups = new Map<string, { cell: Cell; item: Item }[]>();
    const leaves: Item[] = [];
    let ones = 0;
    for (const item of items) {
      const c = driver.get(item.net);
      const single = fanout.get(item.net) === 1;
      let key: string | null = null;
      if (c && single && depth < MAX_DEPTH) {
        if (c.kind === 'mux') {
          const s = bitOf(c.sel);
          key = `mux ${s.src}[${s.bit}]`;
        } else if (c.kind === 'bitwise') key = `bitwise ${c.op}`;
        else if (c.kind === 'not') key = 'not';
      }
      if (c?.kind === 'const') {
        if (c.value & 1n) ones = (ones | (1 << item.pos)) >>> 0;
        if (single) absorbed.add(c);
      } else if (key !== null) {
        const g = groups.get(key) ?? [];
        g.push({ cell: c!, item });
        groups.set(key, g);
      } else leaves.push(item);
    }
    const parts: Lift[] = [];
    for (const g of groups.values()) {
      if (g.length < 2) {
        leaves.push(g[0]!.item);
        continue;
      }
      for (const { cell } of g) absorbed.add(cell);
      const operand = (pick: (c: Cell) => NetId): Lift[] =>
        lift(
          g.map(({ cell, item }) => ({ pos: item.pos, net: pick(cell) })),
          depth + 1,
        );
      const c0 = g[0]!.cell;
      if (c0.kind === 'mux') {
        // The select as a bit of its source; the 1-bit slices that selected it are not needed.
        const s = bitOf(c0.sel);
        for (const { cell } of g) {
          const sel = (cell as typeof c0).sel;
          const sc = bitOf(sel).slice;
          if (sc && fanout.get(sel) === 1) absorbed.add(sc);
        }
        parts.push({
          k: 'mux',
          sel: s.src,
          selBit: s.bit,
          t: operand((c) => (c as typeof c0).whenTrue),
          f: operand((c) => (c as typeof c0).whenFalse),
        });
      } else if (c0.kind === 'bitwise')
        parts.push({
          k: 'bitwise',
          op: c0.op,
          a: operand((c) => (c as typeof c0).a),
          b: operand((c) => (c as typeof c0).b),
        });
      else if (c0.kind === 'not')
        parts.push({
          k: 'not',
          a: operand((c) => (c as typeof c0).a),
          mask: mask(g.map((x) => x.item)),
        });
    }
    // Leaves: bit `lo` of `src` at `pos` (a 1-bit slice, or a 1-bit net as its own bit 0), grouped
    // by source and displacement pos - lo: one shifted, masked word per group.
    const bySource = new Map<string, { src: NetId; shift: number; items: Item[] }>();
    for (const item of leaves) {
      const { src, bit, slice } = bitOf(item.net);
      if (slice && fanout.get(item.net) === 1) absorbed.add(slice);
      const key = `${src} ${item.pos - bit}`;
      const g = bySource.get(key) ?? { src, shift: item.pos - bit, items: [] };
      g.items.push(item);
      bySource.set(key, g);
    }
    for (const { src, shift, items: its } of bySource.values()) {
      const at = Math.min(...its.map((x) => x.pos));
      const top = Math.max(...its.map((x) => x.pos));
      parts.push({ k: 'bits', src, lo: at - shift, len: top - at + 1, mask: mask(its) >>> at, at });
    }
    if (ones !== 0) parts.push({ k: 'ones', value: ones });
    return parts;
  };

  const words = new Map<ConcatCell, (Lift[] | null)[]>();
  for (const c of d.cells) {
    if (c.kind !== 'concat') continue;
    const w = width(c.out);
    const perWord: (Lift[] | null)[] = [];
    let any = false;
    for (let i = 0; i < Math.ceil(w / 32); i++) {
      // 1-bit parts landing in word i (the last part is the least significant).
      const items: Item[] = [];
      let at = 0;
      for (let p = c.parts.length - 1; p >= 0; p--) {
        const pw = width(c.parts[p]!);
        if (pw === 1 && at >= 32 * i && at < 32 * i + 32) items.push({ pos: at - 32 * i, net: c.parts[p]! });
        at += pw;
      }
      const worth = items.length >= 2 && items.some((x) => fanout.get(x.net) === 1);
      perWord.push(worth ? lift(items, 0) : null);
      any ||= worth;
    }
    if (any) words.set(c, perWord);
  }
  return { words, absorbed };
}
