/**
 * The combinational cells of the WebAssembly cycle loop: one emitter per kind of cell, each
 * defining the words of the cell's output through the writer (sim/wasm/writer.ts).
 */
import {
  assertNever,
  type ArithCell,
  type Cell,
  type CompareCell,
  type ConcatCell,
  type H3Cell,
  type MuxCell,
  type NetId,
  type ReduceCell,
  type ShiftCell,
} from '../../src/ir/types.js';
import { concatSlices, h3Lookups, words, wordMask } from '../codegen.js';
import { and, bin, BITWISE, K, load, mask, not, OP, or, orAll, sel, shl, shr, store, xor, type Ex } from './encode.js';
import type { IndexedSelect } from './forms.js';
import type { CycleWriter } from './writer.js';

/** Combinational cell c's output words (nothing for a cell absorbed into a lifted word). */
export function emitCell(w: CycleWriter, c: Cell, indexed: ReadonlyMap<NetId, IndexedSelect>): void {
  if (w.lift?.absorbed.has(c)) return;
  switch (c.kind) {
    case 'const':
      for (let i = 0; i < w.nw(c.out); i++) w.constant(c.out, i, Number((c.value >> BigInt(32 * i)) & 0xffffffffn) | 0);
      return;
    case 'not':
      for (let i = 0; i < w.nw(c.out); i++) w.def(c.out, i, not(w.val(c.a, i), wordMask(w.W(c.out), i)));
      return;
    case 'bitwise':
      for (let i = 0; i < w.nw(c.out); i++) w.def(c.out, i, bin(BITWISE[c.op], w.val(c.a, i), w.val(c.b, i)));
      return;
    case 'arith':
      return emitArith(w, c);
    case 'compare':
      return w.def(c.out, 0, compare(w, c));
    case 'shift':
      return w.nw(c.out) === 1 ? emitShiftWord(w, c) : emitShiftWords(w, c);
    case 'mux': {
      const x = indexed.get(c.out);
      return x ? emitIndexedSelect(w, c, x) : emitMux(w, c);
    }
    case 'concat':
      return emitConcat(w, c);
    case 'slice': {
      const width = w.W(c.out);
      for (let i = 0; i < words(width); i++) w.def(c.out, i, w.bits(c.a, c.lo + 32 * i, Math.min(32, width - 32 * i)));
      return;
    }
    case 'reduce':
      return w.def(c.out, 0, reduce(w, c));
    case 'h3':
      return emitH3(w, c);
    case 'reg':
    case 'memory':
      return;
    default:
      assertNever(c);
  }
}

function emitArith(w: CycleWriter, c: ArithCell): void {
  const { f } = w;
  const k = w.nw(c.out);
  const width = w.W(c.out);
  const op = c.op === 'add' ? OP.add : OP.sub;
  if (k === 1) {
    w.def(c.out, 0, mask(bin(op, w.val(c.a, 0), w.val(c.b, 0)), wordMask(width, 0)));
    return;
  }
  // Word by word with a carry (add) or borrow (sub) local.
  const carry = f.local();
  const t = f.local();
  f.set(carry, K(0));
  for (let i = 0; i < k; i++) {
    f.set(t, bin(op, w.val(c.a, i), w.val(c.b, i)));
    w.def(c.out, i, mask(bin(op, f.get(t), f.get(carry)), wordMask(width, i)));
    // add: carry out when a + b wrapped, or when adding the carry wrapped (t = 2^32 - 1);
    // sub: borrow when a < b, or when subtracting the borrow wrapped (t = 0).
    if (i < k - 1)
      f.set(
        carry,
        c.op === 'add'
          ? or(bin(OP.ltU, f.get(t), w.val(c.a, i)), and(f.get(carry), bin(OP.eq, f.get(t), K(-1))))
          : or(bin(OP.ltU, w.val(c.a, i), w.val(c.b, i)), and(f.get(carry), [...f.get(t), OP.eqz])),
      );
  }
}

function compare(w: CycleWriter, c: CompareCell): Ex {
  const k = w.nw(c.a);
  const eq = (): Ex =>
    k === 1
      ? bin(OP.eq, w.val(c.a, 0), w.val(c.b, 0))
      : [...orAll(Array.from({ length: k }, (_, i) => xor(w.val(c.a, i), w.val(c.b, i)))), OP.eqz];
  // Lexicographic from the top word; every word compared unsigned.
  const order = (op: number, strict: number): Ex => {
    let e = bin(op, w.val(c.a, 0), w.val(c.b, 0));
    for (let i = 1; i < k; i++)
      e = or(bin(strict, w.val(c.a, i), w.val(c.b, i)), and(bin(OP.eq, w.val(c.a, i), w.val(c.b, i)), e));
    return e;
  };
  switch (c.op) {
    case 'eq':
      return eq();
    case 'ne':
      return [...eq(), OP.eqz];
    case 'ult':
      return order(OP.ltU, OP.ltU);
    case 'ule':
      return order(OP.leU, OP.ltU);
    case 'ugt':
      return order(OP.gtU, OP.gtU);
    case 'uge':
      return order(OP.geU, OP.gtU);
    default:
      return assertNever(c.op);
  }
}

/** A shift's amount into a local: all ones when any high word is set (everything shifted out). */
function shiftAmount(w: CycleWriter, c: ShiftCell): number {
  const ka = w.nw(c.amount);
  const amt = w.f.local();
  const high = Array.from({ length: ka - 1 }, (_, i) => w.val(c.amount, i + 1));
  w.f.set(amt, ka > 1 ? sel(orAll(high), K(-1), w.val(c.amount, 0)) : w.val(c.amount, 0));
  return amt;
}

function emitShiftWord(w: CycleWriter, c: ShiftCell): void {
  const width = w.W(c.out);
  const amt = w.f.get(shiftAmount(w, c));
  const out = bin(OP.geU, amt, K(width));
  const e =
    c.op === 'shr' ? bin(OP.shrU, w.val(c.a, 0), amt) : mask(bin(OP.shl, w.val(c.a, 0), amt), wordMask(width, 0));
  w.def(c.out, 0, sel(out, K(0), e));
}

/**
 * A multi-word shift: the value sits between two zero blocks of k words in a scratch area, so
 * word j of the shifted value is a load at a distance of (amount >> 5) words.
 */
function emitShiftWords(w: CycleWriter, c: ShiftCell): void {
  const { f } = w;
  const width = w.W(c.out);
  const amt = shiftAmount(w, c);
  const out = bin(OP.geU, f.get(amt), K(width));
  const k = w.nw(c.out);
  const base = w.plan.scratch.get(c)!;
  for (let i = 0; i < k; i++) f.emit(...store(K(0), w.val(c.a, i), base + (k + i) * 4));
  const q = f.local();
  const r = f.local();
  f.set(q, sel(out, K(0), shr(f.get(amt), 5)));
  f.set(r, and(f.get(amt), K(31)));
  // Address of scratch word (k + i + s*q + d), in bytes, s = +1 (shr) or -1 (shl).
  const word = (i: number, dWords: number): Ex => {
    const idx = c.op === 'shl' ? bin(OP.sub, K(k + i + dWords), f.get(q)) : bin(OP.add, f.get(q), K(k + i + dWords));
    return load(shl(idx, 2), base);
  };
  for (let i = 0; i < k; i++) {
    const main = c.op === 'shl' ? bin(OP.shl, word(i, 0), f.get(r)) : bin(OP.shrU, word(i, 0), f.get(r));
    const spill =
      c.op === 'shl'
        ? bin(OP.shrU, word(i, -1), bin(OP.sub, K(32), f.get(r)))
        : bin(OP.shl, word(i, 1), bin(OP.sub, K(32), f.get(r)));
    const e = mask(or(main, sel([...f.get(r), OP.eqz], K(0), spill)), wordMask(width, i));
    w.def(c.out, i, sel(out, K(0), e));
  }
}

function emitMux(w: CycleWriter, c: MuxCell): void {
  for (let i = 0; i < w.nw(c.out); i++)
    w.def(c.out, i, sel(w.test(c.sel), w.val(c.whenTrue, i), w.val(c.whenFalse, i)));
}

/** A mux tree picking a field of one word (a shift) or a register of a bank (a load). */
function emitIndexedSelect(w: CycleWriter, c: MuxCell, x: IndexedSelect): void {
  const at = w.bits(x.idx, 0, x.idxBits);
  if (x.from === 'word') {
    const amount = bin(OP.add, K(x.base), x.stride === 1 ? at : bin(OP.mul, at, K(x.stride)));
    w.def(c.out, 0, mask(bin(OP.shrU, w.val(x.word, 0), amount), wordMask(x.width, 0)));
  } else {
    // A load from the current V at a computed address.
    const addr = bin(OP.add, w.f.get(w.cur), bin(OP.mul, at, K(x.stride * 4)));
    for (let i = 0; i < w.nw(c.out); i++) w.def(c.out, i, load(addr, (x.base + i) * 4));
  }
}

function emitConcat(w: CycleWriter, c: ConcatCell): void {
  const lifted = w.lift?.words.get(c);
  for (let i = 0; i < w.nw(c.out); i++) {
    const pl = lifted?.[i];
    const terms: Ex[] = pl ? [w.liftEx(pl)] : [];
    for (const x of concatSlices(w.d, c, i, pl !== undefined && pl !== null))
      terms.push(shl(w.bits(x.net, x.lo, x.len), x.at));
    w.def(c.out, i, terms.length === 0 ? K(0) : orAll(terms));
  }
}

function reduce(w: CycleWriter, c: ReduceCell): Ex {
  const k = w.nw(c.a);
  const width = w.W(c.a);
  const ws = Array.from({ length: k }, (_, i) => w.val(c.a, i));
  if (c.op === 'and') return ws.map((x, i) => bin(OP.eq, x, K(wordMask(width, i) | 0))).reduce((a, b) => and(a, b));
  if (c.op === 'or') return bin(OP.ne, orAll(ws), K(0));
  return and([...ws.reduce((a, b) => xor(a, b)), OP.popcnt], K(1));
}

function emitH3(w: CycleWriter, c: H3Cell): void {
  const { table, bytes } = h3Lookups(w.d, w.L, c);
  const terms = bytes.map((b) =>
    load(shl(mask(shr(w.val(c.key, b >>> 2), (b & 3) * 8), 255), 2), w.plan.tables[table]! + b * 1024),
  );
  w.def(c.out, 0, terms.length ? terms.reduce((a, b) => xor(a, b)) : K(0));
}
