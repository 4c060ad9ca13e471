/**
 * The writer of the WebAssembly cycle loop's body: the function being written, the loop's own
 * locals, and the reads and definitions of net words — a combinational net word is an i32
 * local, a constant is substituted at its use, and state is loaded from the current V (into
 * locals where read more than once, again where read far from its last load).
 */
import { assertNever, type Design, type NetId } from '../../src/ir/types.js';
import { words, wordMask, type Layout } from '../codegen.js';
import type { Lift, LiftPlan } from '../lift.js';
import { bin, BITWISE, Fn, K, load, mask, not, or, orAll, sel, shl, shr, and, type Ex } from './encode.js';
import type { StateLayout, WasmPlan } from './layout.js';

/**
 * A state word kept in a local is loaded again where it is read more than this many cells after
 * its last load, so that no local lives across the whole cycle (on the 4 × 4 lane presets,
 * over 6000 cells, such locals were spilled to stack slots and moved around; README "Benchmark").
 */
const RELOAD_DISTANCE = 200;

/** A synchronous reset's test: its pre-edge value's local and the register words it sets. */
export interface ResetGroup {
  pre: number;
  assign: { net: NetId; i: number; rv: number }[];
}

export class CycleWriter {
  readonly f = new Fn();
  /** Byte address of the current V (read during the cycle) and of the next V (written). */
  readonly cur: number;
  readonly nxt: number;
  /** Cycles left, and the byte offsets of this cycle's stimulus and output rows. */
  readonly cyc: number;
  readonly ib: number;
  readonly ob: number;
  /** Same-address reads during writes counted on 'undefined' memories. */
  readonly collisions: number;
  /** The count of cells of the combinational order passed (see RELOAD_DISTANCE). */
  pos = 0;
  /** The registers' resets by reset net, applied after the clock edge. */
  readonly resets = new Map<NetId, ResetGroup>();
  private readonly locals = new Map<string, number>();
  private readonly consts = new Map<string, number>();
  private readonly loaded = new Set<NetId>();
  /** Where (`pos`) each state net in locals was last loaded. */
  private readonly loadedAt = new Map<NetId, number>();

  constructor(
    readonly d: Design,
    readonly L: Layout,
    readonly plan: WasmPlan,
    readonly state: StateLayout,
    readonly lift: LiftPlan | null,
    readonly poison: boolean,
  ) {
    this.cur = this.f.local();
    this.nxt = this.f.local();
    this.cyc = this.f.local();
    this.ib = this.f.local();
    this.ob = this.f.local();
    this.collisions = this.f.local();
  }

  W(n: NetId): number {
    return this.d.nets[n]!.width;
  }
  nw(n: NetId): number {
    return words(this.W(n));
  }
  /** Byte offset of word i of net n in V. */
  at(n: NetId, i: number): number {
    return (this.L.offset[n]! + i) * 4;
  }

  private localOf(n: NetId, i: number): number {
    const key = `${n}_${i}`;
    let l = this.locals.get(key);
    if (l === undefined) {
      l = this.f.local();
      this.locals.set(key, l);
    }
    return l;
  }

  /** Word i of net n. */
  val(n: NetId, i: number): Ex {
    const c = this.consts.get(`${n}_${i}`);
    if (c !== undefined) return K(c);
    if (this.state.isState.has(n)) {
      if (!this.state.inLocals.has(n)) return load(this.f.get(this.cur), this.at(n, i));
      if (!this.loaded.has(n) || this.pos - this.loadedAt.get(n)! > RELOAD_DISTANCE) this.loadState(n);
    }
    return this.f.get(this.localOf(n, i));
  }
  /** Word i of net n is e (computed here, into its local). */
  def(n: NetId, i: number, e: Ex): void {
    this.f.set(this.localOf(n, i), e);
  }
  /** Word i of net n is the constant v at every use. */
  constant(n: NetId, i: number, v: number): void {
    this.consts.set(`${n}_${i}`, v);
  }

  /** State net n into its locals (again, if loaded before: the current V is not written). */
  loadState(n: NetId): void {
    this.loaded.add(n);
    this.loadedAt.set(n, this.pos);
    for (let i = 0; i < this.nw(n); i++) this.def(n, i, load(this.f.get(this.cur), this.at(n, i)));
  }
  /** The state kept in locals and not read yet (before the output block: the block is conditional). */
  loadUnreadState(): void {
    for (const n of this.state.inLocals) if (!this.loaded.has(n)) this.loadState(n);
  }

  /** Bits [lo, lo+len) of net n, len <= 32. */
  bits(n: NetId, lo: number, len: number): Ex {
    const q = lo >>> 5;
    const r = lo & 31;
    const m = wordMask(len, 0);
    if (r + len <= 32) {
      const s = shr(this.val(n, q), r);
      if (r + len === 32 || (r === 0 && len >= this.W(n) - 32 * q)) return s;
      return mask(s, m);
    }
    return mask(or(shr(this.val(n, q), r), shl(this.val(n, q + 1), 32 - r)), m);
  }
  /** Non-zero iff bit `bit` of net n is set. */
  bitTest(n: NetId, bit: number): Ex {
    return and(this.val(n, bit >>> 5), K(1 << (bit & 31)));
  }
  /** Non-zero iff the 1-bit net n is 1 (tested in place when it is a bit of another net). */
  test(n: NetId): Ex {
    const b = this.state.bitOf.get(n);
    return b ? this.bitTest(b.a, b.lo) : this.val(n, 0);
  }

  /** The OR of lifted parts (sim/lift.ts). */
  liftEx(parts: readonly Lift[]): Ex {
    return parts.length === 0 ? K(0) : orAll(parts.map((x) => this.liftPart(x)));
  }
  private liftPart(x: Lift): Ex {
    switch (x.k) {
      case 'ones':
        return K(x.value);
      case 'bits': {
        let e = this.bits(x.src, x.lo, x.len);
        if (x.mask !== wordMask(x.len, 0)) e = mask(e, x.mask);
        return shl(e, x.at);
      }
      case 'not':
        return not(this.liftEx(x.a), x.mask);
      case 'bitwise':
        return bin(BITWISE[x.op], this.liftEx(x.a), this.liftEx(x.b));
      case 'mux':
        return sel(this.bitTest(x.sel, x.selBit), this.liftEx(x.t), this.liftEx(x.f));
      default:
        return assertNever(x);
    }
  }
}
