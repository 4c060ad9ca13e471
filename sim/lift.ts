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

/** 1-bit cells of one kind (and select) and the items they drive. */
type Group = { cell: Cell; item: Item }[];

export function planLifts(d: Design): LiftPlan {
  const lifter = new Lifter(d);
  const words = new Map<ConcatCell, (Lift[] | null)[]>();
  for (const c of d.cells) {
    if (c.kind !== 'concat') continue;
    const perWord = Array.from({ length: Math.ceil(d.nets[c.out]!.width / 32) }, (_, i) => lifter.concatWord(c, i));
    if (perWord.some((w) => w !== null)) words.set(c, perWord);
  }
  return { words, absorbed: lifter.absorbed };
}

const mask = (items: readonly Item[]): number => items.reduce((m, x) => (m | (1 << x.pos)) >>> 0, 0);

/** The 1-bit cells behind a concat's words grouped into word-wide parts, recording what they absorb. */
class Lifter {
  readonly absorbed = new Set<Cell>();
  private readonly driver: ReadonlyMap<NetId, Cell>;
  /** Readers of each net (cell inputs and output ports). */
  private readonly fanout = new Map<NetId, number>();

  constructor(private readonly d: Design) {
    this.driver = driverMap(d);
    const read = (n: NetId): void => void this.fanout.set(n, (this.fanout.get(n) ?? 0) + 1);
    for (const c of d.cells) cellInputs(c).forEach(read);
    for (const p of d.outputs) read(p.net);
  }

  /** Word i of concat c lifted, or null when it has fewer than two 1-bit parts or none read only here. */
  concatWord(c: ConcatCell, i: number): Lift[] | null {
    // 1-bit parts landing in word i (the last part is the least significant).
    const items: Item[] = [];
    let at = 0;
    for (let p = c.parts.length - 1; p >= 0; p--) {
      const pw = this.d.nets[c.parts[p]!]!.width;
      if (pw === 1 && at >= 32 * i && at < 32 * i + 32) items.push({ pos: at - 32 * i, net: c.parts[p]! });
      at += pw;
    }
    const worth = items.length >= 2 && items.some((x) => this.fanout.get(x.net) === 1);
    return worth ? this.lift(items, 0) : null;
  }

  /**
   * A 1-bit net as bit `bit` of net `src`: of the sliced net when a slice drives it (generators
   * select the same bit again and again, one slice cell per use), else bit 0 of itself.
   */
  private bitOf(n: NetId): { src: NetId; bit: number; slice: Cell | null } {
    const c = this.driver.get(n);
    return c?.kind === 'slice' ? { src: c.a, bit: c.lo, slice: c } : { src: n, bit: 0, slice: null };
  }

  private lift(items: readonly Item[], depth: number): Lift[] {
    const { groups, leaves, ones } = this.sort(items, depth);
    const parts: Lift[] = [];
    for (const g of groups.values()) {
      if (g.length < 2) leaves.push(g[0]!.item);
      else parts.push(this.groupPart(g, depth));
    }
    parts.push(...this.leafParts(leaves));
    if (ones !== 0) parts.push({ k: 'ones', value: ones });
    return parts;
  }

  /**
   * The items by the cell driving them when it is read only here (a mux by its select, a gate by
   * its operator), the rest as leaves, and the constant ones.
   */
  private sort(items: readonly Item[], depth: number): { groups: Map<string, Group>; leaves: Item[]; ones: number } {
    const groups = new Map<string, Group>();
    const leaves: Item[] = [];
    let ones = 0;
    for (const item of items) {
      const c = this.driver.get(item.net);
      const single = this.fanout.get(item.net) === 1;
      let key: string | null = null;
      if (c && single && depth < MAX_DEPTH) {
        if (c.kind === 'mux') {
          const s = this.bitOf(c.sel);
          key = `mux ${s.src}[${s.bit}]`;
        } else if (c.kind === 'bitwise') key = `bitwise ${c.op}`;
        else if (c.kind === 'not') key = 'not';
      }
      if (c?.kind === 'const') {
        if (c.value & 1n) ones = (ones | (1 << item.pos)) >>> 0;
        if (single) this.absorbed.add(c);
      } else if (key !== null) {
        const g = groups.get(key) ?? [];
        g.push({ cell: c!, item });
        groups.set(key, g);
      } else leaves.push(item);
    }
    return { groups, leaves, ones };
  }

  /** A group of at least two cells of one kind as one word-wide operation on lifted operands. */
  private groupPart(g: Group, depth: number): Lift {
    for (const { cell } of g) this.absorbed.add(cell);
    const operand = (pick: (c: Cell) => NetId): Lift[] =>
      this.lift(
        g.map(({ cell, item }) => ({ pos: item.pos, net: pick(cell) })),
        depth + 1,
      );
    const c0 = g[0]!.cell;
    if (c0.kind === 'mux') {
      // The select as a bit of its source; the 1-bit slices that selected it are not needed.
      const s = this.bitOf(c0.sel);
      for (const { cell } of g) {
        const sel = (cell as typeof c0).sel;
        const sc = this.bitOf(sel).slice;
        if (sc && this.fanout.get(sel) === 1) this.absorbed.add(sc);
      }
      return {
        k: 'mux',
        sel: s.src,
        selBit: s.bit,
        t: operand((c) => (c as typeof c0).whenTrue),
        f: operand((c) => (c as typeof c0).whenFalse),
      };
    }
    if (c0.kind === 'bitwise')
      return {
        k: 'bitwise',
        op: c0.op,
        a: operand((c) => (c as typeof c0).a),
        b: operand((c) => (c as typeof c0).b),
      };
    if (c0.kind === 'not')
      return {
        k: 'not',
        a: operand((c) => (c as typeof c0).a),
        mask: mask(g.map((x) => x.item)),
      };
    throw new Error(`lift: no group of '${c0.kind}' cells`);
  }

  /**
   * Leaves: bit `lo` of `src` at `pos` (a 1-bit slice, or a 1-bit net as its own bit 0), grouped
   * by source and displacement pos - lo: one shifted, masked word per group.
   */
  private leafParts(leaves: readonly Item[]): Lift[] {
    const bySource = new Map<string, { src: NetId; shift: number; items: Item[] }>();
    for (const item of leaves) {
      const { src, bit, slice } = this.bitOf(item.net);
      if (slice && this.fanout.get(item.net) === 1) this.absorbed.add(slice);
      const key = `${src} ${item.pos - bit}`;
      const g = bySource.get(key) ?? { src, shift: item.pos - bit, items: [] };
      g.items.push(item);
      bySource.set(key, g);
    }
    return [...bySource.values()].map(({ src, shift, items: its }): Lift => {
      const at = Math.min(...its.map((x) => x.pos));
      const top = Math.max(...its.map((x) => x.pos));
      return { k: 'bits', src, lo: at - shift, len: top - at + 1, mask: mask(its) >>> at, at };
    });
  }
}
