/**
 * The control port (`generate --control regs`): an IR pass that gives any built filter a simple
 * register port beside its request/response streams — counters, a freeze, a scan chain over
 * every register, and word access to every block RAM — so that the whole state can be read out
 * (a snapshot) and written back (a restore), in hardware and in the simulators alike.
 *
 * Ports added (all synchronous to the clock; every `ctl_*` input is ignored while `ctl_freeze`
 * is low, and `rst` must be low while frozen):
 *   ctl_freeze            1: the pipeline stops — every register holds, the design's block RAM
 *                         ports are off, in_ready and out_valid read 0 (no handshake completes),
 *                         the counters stop. Takes effect at the first edge it is high; leaving
 *                         it, the pipeline goes on from where it stopped, as if it had never been
 *                         frozen (the block RAMs' read registers are held across the freeze).
 *   ctl_scan              1 (frozen): the register chain shifts one 32-bit word; `ctl_scan_out`
 *                         shows the word that leaves it next. The chain holds every register of
 *                         the design and of this port's state (`meta.control.chain`, in order).
 *   ctl_scan_load         with ctl_scan: the word entering the chain is ctl_wdata; otherwise the
 *                         word that leaves it (a read-out of `words` shifts leaves it unchanged).
 *   ctl_mem_sel, ctl_mem_addr, ctl_mem_chunk
 *                         block RAM (`meta.control.memories` order), word address, 32-bit chunk
 *   ctl_mem_rd            1 (frozen): read the word; ctl_mem_rdata shows the chunk next cycle
 *   ctl_mem_stage         1 (frozen): ctl_wdata into chunk ctl_mem_chunk of the write buffer
 *   ctl_mem_wr            1 (frozen): write the buffer (its low `width` bits) to the word
 *   ctl_wdata[31:0]
 *   ctl_rsel[3:0]         what ctl_rdata shows (a mux of registers, frozen or not):
 *   ctl_rdata[31:0]         0 the chain word the next ctl_scan shifts out; 1 the 32-bit chunk
 *                           read by ctl_mem_rd one cycle earlier; 2..6 the 32-bit counters
 *                           (wrapping, one cycle behind the events they count, part of the
 *                           chain, so a restore restores them): requests
 *                           (accepted), inserts (accepted requests whose op inserts), responses,
 *                           hits (responses with out_hit), stalls (cycles with in_valid high and
 *                           in_ready low, not frozen); 7 the chain length in words; 8 aging
 *                           events (the family's pulse: shifts, wraps) counted the same way; 9
 *                           the family's occupancy estimate (a register, e.g. the APBF's inserts
 *                           into the newest generation); 0 where a family names none.
 * One 32-bit read port rather than an output per register keeps the design within the I/O pins
 * of the small parts (an HX8K has 206).
 *
 * Cost: a 2:1 mux in front of every register's input and of every block RAM port, the counters
 * and the write buffer; `synth` measures it (README).
 */
import { captureLoc } from '../ir/srcloc.js';
import { runPasses } from '../ir/passes/index.js';
import type { Cell, Design, MemoryCell, Net, NetId, Port, RegCell, SrcLoc } from '../ir/types.js';

export const CONTROL_WORD = 32;

export interface ControlOptions {
  /** in_op codes of the ops that insert (counted by ctl_inserts). */
  insertOps: readonly number[];
  /** in_op codes of the ops that remove (multisets) and of those that clear: the occupancy count's. */
  removeOps?: readonly number[];
  clearOps?: readonly number[];
  /**
   * Aging events (counted by ctl_events): a 1-bit register of the design that pulses once per
   * event, a register's transition (from one value to another at an edge it is enabled), or every
   * edge at which a register is enabled and its next value is above its value (unsigned: `rises`).
   */
  events?: ControlEvents;
  /** What ctl_rsel 9 shows (see ControlOccupancy). */
  occupancy?: ControlOccupancy;
}

export type ControlEvents = string | { reg: string; from: number; to: number } | { reg: string; rises: true };

/**
 * An occupancy estimate: a register of the design, or registers concatenated (the first in the top
 * bits: {tplus, bcnt} = tplus·B + bcnt), or `{ count: 'inserts' }`: a counter this port adds
 * (`ctl_occupancy`) of the accepted inserting requests minus the accepted removing ones since the
 * last accepted clear (or reset), 32-bit two's complement, one cycle behind like the counters.
 */
export type ControlOccupancy = string | readonly string[] | { count: 'inserts' };

export interface ChainEntry {
  name: string;
  width: number;
}

export interface ControlMemory {
  name: string;
  width: number;
  depth: number;
  chunks: number;
}

/** What a snapshot reader needs: the chain's layout and the memories, in port order. */
export interface ControlMap {
  chain: ChainEntry[];
  /** Chain length in 32-bit words (the chain is padded to whole words). */
  words: number;
  memories: ControlMemory[];
  /** The counters and the ctl_rsel value that shows each. */
  counters: { name: string; rsel: number }[];
  /**
   * What ctl_rsel 9 shows (null: none, reads 0): the register, the registers concatenated
   * ('tplus,bcnt'), or 'ctl_occupancy' (the port's count of inserts − removes since the last clear).
   */
  occupancy: string | null;
}

const clog2 = (n: number): number => Math.max(1, Math.ceil(Math.log2(Math.max(2, n))));

/** A small editor over a design's nets and cells. */
class Edit {
  readonly nets: Net[];
  readonly cells: Cell[];
  constructor(
    d: Design,
    private readonly loc: SrcLoc,
  ) {
    this.nets = d.nets.map((n) => ({ ...n }));
    this.cells = [...d.cells];
  }
  w(n: NetId): number {
    return this.nets[n]!.width;
  }
  net(width: number, name: string, named = false): NetId {
    const id = this.nets.length;
    this.nets.push({ id, width, name, named, loc: this.loc, scope: ['ctl'] });
    return id;
  }
  private add(c: Cell): void {
    this.cells.push(c);
  }
  k(value: bigint | number, width: number): NetId {
    const out = this.net(width, 'const');
    this.add({ kind: 'const', out, value: BigInt(value) & ((1n << BigInt(width)) - 1n), loc: this.loc });
    return out;
  }
  not(a: NetId): NetId {
    const out = this.net(this.w(a), 'not');
    this.add({ kind: 'not', a, out, loc: this.loc });
    return out;
  }
  bit(op: 'and' | 'or', a: NetId, b: NetId): NetId {
    const out = this.net(this.w(a), op);
    this.add({ kind: 'bitwise', op, a, b, out, loc: this.loc });
    return out;
  }
  and(...xs: NetId[]): NetId {
    return xs.reduce((a, b) => this.bit('and', a, b));
  }
  or(...xs: NetId[]): NetId {
    return xs.reduce((a, b) => this.bit('or', a, b));
  }
  eq(a: NetId, value: number): NetId {
    const out = this.net(1, 'eq');
    this.add({ kind: 'compare', op: 'eq', a, b: this.k(value, this.w(a)), out, loc: this.loc });
    return out;
  }
  cmp(op: 'ugt', a: NetId, b: NetId): NetId {
    const out = this.net(1, op);
    this.add({ kind: 'compare', op, a, b, out, loc: this.loc });
    return out;
  }
  dec(a: NetId): NetId {
    const out = this.net(this.w(a), 'sub');
    this.add({ kind: 'arith', op: 'sub', a, b: this.k(1, this.w(a)), out, loc: this.loc });
    return out;
  }
  mux(sel: NetId, whenTrue: NetId, whenFalse: NetId): NetId {
    const out = this.net(this.w(whenTrue), 'mux');
    this.add({ kind: 'mux', sel, whenTrue, whenFalse, out, loc: this.loc });
    return out;
  }
  slice(a: NetId, lo: number, width: number): NetId {
    if (lo === 0 && width === this.w(a)) return a;
    const out = this.net(width, 'slice');
    this.add({ kind: 'slice', a, lo, out, loc: this.loc });
    return out;
  }
  /** Low `width` bits of a, or a zero-extended to `width`. */
  fit(a: NetId, width: number): NetId {
    const wa = this.w(a);
    if (wa === width) return a;
    if (wa > width) return this.slice(a, 0, width);
    return this.cat(this.k(0, width - wa), a);
  }
  /** {parts[0], parts[1], …}: parts[0] in the top bits. */
  cat(...parts: NetId[]): NetId {
    if (parts.length === 1) return parts[0]!;
    const out = this.net(
      parts.reduce((s, p) => s + this.w(p), 0),
      'cat',
    );
    this.add({ kind: 'concat', parts, out, loc: this.loc });
    return out;
  }
  inc(a: NetId): NetId {
    const out = this.net(this.w(a), 'add');
    this.add({ kind: 'arith', op: 'add', a, b: this.k(1, this.w(a)), out, loc: this.loc });
    return out;
  }
  shr(a: NetId, amount: NetId): NetId {
    const out = this.net(this.w(a), 'shr');
    this.add({ kind: 'shift', op: 'shr', a, amount, out, loc: this.loc });
    return out;
  }
  reg(out: NetId, d: NetId, en: NetId | null, resetValue = 0n, rst: NetId | null = null): void {
    this.add({ kind: 'reg', d, out, en, rst, resetValue, loc: this.loc });
  }
  replace(i: number, c: Cell): void {
    this.cells[i] = c;
  }
  /** out = a + b (an existing net). */
  addArith(out: NetId, a: NetId, b: NetId): void {
    this.add({ kind: 'arith', op: 'add', a, b, out, loc: this.loc });
  }
  /** out = a − b (an existing net). */
  subArith(out: NetId, a: NetId, b: NetId): void {
    this.add({ kind: 'arith', op: 'sub', a, b, out, loc: this.loc });
  }
  /** Drive an existing net (one whose driver was moved) with a mux. */
  muxInto(out: NetId, sel: NetId, whenTrue: NetId, whenFalse: NetId): void {
    this.add({ kind: 'mux', sel, whenTrue, whenFalse, out, loc: this.loc });
  }
}

function portNet(d: Design, dir: 'in' | 'out', name: string): NetId {
  const p = (dir === 'in' ? d.inputs : d.outputs).find((x) => x.name === name);
  if (!p) throw new Error(`control port: the design '${d.name}' has no ${dir}put '${name}'`);
  return p.net;
}

/** The design with the control port (see the header), and its map in `meta.control`. */
export function withControl(d: Design, o: ControlOptions): Design {
  const loc = captureLoc();
  const e = new Edit(d, loc);
  const inputs: Port[] = [...d.inputs];
  const outputs: Port[] = [...d.outputs];
  const input = (name: string, width: number, doc: string): NetId => {
    const n = e.net(width, name, true);
    inputs.push({ name, net: n, doc });
    return n;
  };
  const output = (name: string, net: NetId, doc: string): void => {
    outputs.push({ name, net, doc });
  };

  const memories = d.cells.flatMap((c, i) => (c.kind === 'memory' ? [{ c, i }] : []));
  const regs = d.cells.flatMap((c, i) => (c.kind === 'reg' ? [{ c, i }] : []));
  const maxChunks = Math.max(1, ...memories.map((m) => Math.ceil(m.c.width / CONTROL_WORD)));
  const addrBits = Math.max(1, ...memories.map((m) => e.w(m.c.rdAddr)));

  const freeze = input(
    'ctl_freeze',
    1,
    'control: 1 stops the pipeline (registers hold, block RAM ports off, no handshake)',
  );
  const scan = input('ctl_scan', 1, 'control (frozen): shift the register chain one 32-bit word');
  const scanLoad = input('ctl_scan_load', 1, 'control: with ctl_scan, shift in ctl_wdata instead of the leaving word');
  const memSel = input(
    'ctl_mem_sel',
    clog2(memories.length),
    "control: block RAM, in the manifest's control.memories order",
  );
  const memAddr = input('ctl_mem_addr', addrBits, 'control: block RAM word address');
  const memChunk = input('ctl_mem_chunk', clog2(maxChunks), 'control: 32-bit chunk of the word (chunk 0 = bits 31:0)');
  const memRd = input('ctl_mem_rd', 1, 'control (frozen): read the word; ctl_mem_rdata has the chunk next cycle');
  const memStage = input(
    'ctl_mem_stage',
    1,
    'control (frozen): ctl_wdata into chunk ctl_mem_chunk of the write buffer',
  );
  const memWr = input('ctl_mem_wr', 1, 'control (frozen): write the buffer to the word');
  const wdata = input('ctl_wdata', CONTROL_WORD, 'control: data for ctl_scan_load and ctl_mem_stage');
  const rsel = input('ctl_rsel', 4, 'control: what ctl_rdata shows (see ctl_rdata)');
  const live = e.not(freeze);
  const shifting = e.and(freeze, scan);

  // Handshakes: none completes while frozen; the counters see the unfrozen ones.
  const inValid = portNet(d, 'in', 'in_valid');
  const outReady = portNet(d, 'in', 'out_ready');
  const inReadyPort = outputs.findIndex((p) => p.name === 'in_ready');
  const outValidPort = outputs.findIndex((p) => p.name === 'out_valid');
  if (inReadyPort < 0 || outValidPort < 0) throw new Error(`control port: '${d.name}' has no in_ready/out_valid`);
  const inReady = outputs[inReadyPort]!.net;
  const outValid = outputs[outValidPort]!.net;
  for (const [idx, net] of [
    [inReadyPort, inReady],
    [outValidPort, outValid],
  ] as const) {
    const gated = e.and(net, live);
    e.nets[net]!.name = `${outputs[idx]!.name}_core`;
    outputs[idx] = { ...outputs[idx]!, net: gated, doc: `${outputs[idx]!.doc} (0 while ctl_freeze)` };
  }

  // Control-side state outside the chain: the memory write buffer and the read's select/chunk.
  const bufChunks = Array.from({ length: maxChunks }, (_, j) => {
    const r = e.net(CONTROL_WORD, `ctl_wbuf_${j}`, true);
    e.reg(r, wdata, e.and(freeze, memStage, e.eq(memChunk, j)));
    return r;
  });
  const wbuf = e.cat(...[...bufChunks].reverse());
  const selQ = e.net(e.w(memSel), 'ctl_sel_q', true);
  e.reg(selQ, memSel, null);
  const chunkQ = e.net(e.w(memChunk), 'ctl_chunk_q', true);
  e.reg(chunkQ, memChunk, null);

  // Chain members: the design's registers, then the read holds, then the counters.
  const chain: { net: NetId; name: string; set: (next: NetId) => void }[] = [];
  const heldValid = e.net(1, 'ctl_held_valid', true);
  const counterNames = ['requests', 'inserts', 'responses', 'hits', 'stalls', 'events'];

  const rdSel: NetId[] = [];
  memories.forEach(({ c, i }, mi) => {
    const sel = e.and(freeze, e.eq(memSel, mi));
    const raw = e.net(c.width, `${c.name}_rd_raw`, true);
    const held = e.net(c.width, `ctl_${c.name}_held`, true);
    rdSel.push(raw);
    const aw = e.w(c.rdAddr);
    const addr = e.fit(memAddr, aw);
    const mem: MemoryCell = {
      ...c,
      rdData: raw,
      rdAddr: e.mux(freeze, addr, c.rdAddr),
      rdEn: e.mux(freeze, e.and(sel, memRd), c.rdEn),
      wrAddr: e.mux(freeze, e.fit(memAddr, e.w(c.wrAddr)), c.wrAddr),
      wrEn: e.mux(freeze, e.and(sel, memWr), c.wrEn),
      wrData: e.mux(freeze, e.fit(wbuf, c.width), c.wrData),
      wrMask: c.wrMask === null ? null : e.mux(freeze, e.k(-1n, c.width), c.wrMask),
    };
    e.replace(i, mem);
    // The design reads its held word until the first unfrozen cycle is over.
    e.muxInto(c.rdData, heldValid, held, raw);
    chain.push({
      net: held,
      name: `ctl_${c.name}_held`,
      set: (next) => e.reg(held, e.mux(shifting, next, raw), e.or(shifting, e.and(freeze, e.not(heldValid)))),
    });
  });

  const chainRegs: { net: NetId; name: string; set: (next: NetId) => void }[] = regs.map(({ c, i }) => ({
    net: c.out,
    name: e.nets[c.out]!.name,
    set: (next: NetId) => {
      const r: RegCell = {
        ...c,
        d: e.mux(shifting, next, c.d),
        en: c.en === null ? e.or(shifting, live) : e.or(shifting, e.and(c.en, live)),
      };
      e.replace(i, r);
    },
  }));
  chain.unshift(...chainRegs);
  chain.push({
    net: heldValid,
    name: 'ctl_held_valid',
    set: (next) => e.reg(heldValid, e.mux(shifting, next, freeze), null),
  });
  // Counters.
  const rst = d.inputs.find((p) => p.name === 'rst')?.net ?? null;
  const accepted = e.and(inValid, inReady, live);
  const opNet = d.inputs.find((p) => p.name === 'in_op')?.net;
  const inserting =
    opNet === undefined || o.insertOps.length === 0
      ? e.k(0, 1)
      : e.and(accepted, e.or(...o.insertOps.map((code) => e.eq(opNet, code))));
  const responded = e.and(outValid, outReady, live);
  const hitNet = d.outputs.find((p) => p.name === 'out_hit')?.net;
  const hit = hitNet === undefined ? e.k(0, 1) : e.and(responded, e.fit(hitNet, 1));
  const stalled = e.and(inValid, e.not(inReady), live);
  const named = (name: string | undefined, what: string): NetId | null => {
    if (name === undefined) return null;
    const n = e.nets.findIndex((x) => x.name === name);
    if (n < 0) throw new Error(`control port: ${what} register '${name}' is not in design '${d.name}'`);
    return n;
  };
  let eventNet: NetId | null = null;
  if (typeof o.events === 'string') eventNet = named(o.events, 'events');
  else if (o.events) {
    const q = named(o.events.reg, 'events')!;
    const r = d.cells.find((c): c is RegCell => c.kind === 'reg' && c.out === q);
    if (!r) throw new Error(`control port: events: '${o.events.reg}' is not a register of '${d.name}'`);
    const en = r.en === null ? e.k(1, 1) : r.en;
    eventNet =
      'rises' in o.events ? e.and(en, e.cmp('ugt', r.d, q)) : e.and(en, e.eq(q, o.events.from), e.eq(r.d, o.events.to));
  }
  const occ = o.occupancy;
  const occupancyNet =
    occ === undefined || (typeof occ === 'object' && 'count' in occ)
      ? null
      : typeof occ === 'string'
        ? named(occ, 'occupancy')
        : e.cat(...occ.map((n) => named(n, 'occupancy')!));
  // A register pulse: counted when it is high in an unfrozen cycle.
  const events = eventNet === null ? e.k(0, 1) : e.and(e.fit(eventNet, 1), live);
  // Each counter is pipelined off the pipeline's paths: the event is registered (ev), counted into
  // a 16-bit low half the cycle after, and the low half's wrap is registered (cy) and counted into
  // the high half the cycle after that; the read value is {hi + cy, lo}, one cycle behind the
  // events. Every one of these registers holds while frozen and is in the chain.
  const H = CONTROL_WORD / 2;
  const counterReads = [accepted, inserting, responded, hit, stalled, events].map((cond, j) => {
    const n = counterNames[j]!;
    const ev = e.net(1, `ctl_${n}_ev`, true);
    const lo = e.net(H, `ctl_${n}_lo`, true);
    const cy = e.net(1, `ctl_${n}_cy`, true);
    const hi = e.net(H, `ctl_${n}_hi`, true);
    const liveOr = e.or(shifting, live);
    chain.push(
      { net: ev, name: `ctl_${n}_ev`, set: (next) => e.reg(ev, e.mux(shifting, next, cond), liveOr, 0n, rst) },
      {
        net: lo,
        name: `ctl_${n}_lo`,
        set: (next) => e.reg(lo, e.mux(shifting, next, e.inc(lo)), e.or(shifting, e.and(live, ev)), 0n, rst),
      },
      {
        net: cy,
        name: `ctl_${n}_cy`,
        set: (next) => e.reg(cy, e.mux(shifting, next, e.and(ev, e.eq(lo, 2 ** H - 1))), liveOr, 0n, rst),
      },
      {
        net: hi,
        name: `ctl_${n}_hi`,
        set: (next) => e.reg(hi, e.mux(shifting, next, e.inc(hi)), e.or(shifting, e.and(live, cy)), 0n, rst),
      },
    );
    const hiNow = e.net(H, `ctl_${n}_hi_now`);
    e.addArith(hiNow, hi, e.fit(cy, H));
    return e.cat(hiNow, lo);
  });

  // The occupancy count ({ count: 'inserts' }): built like the counters (registered events, 16-bit
  // halves, the high half's step registered), counting up on inserts and down on removes, and
  // back to 0 on a clear; the read value is {hi + up − down, lo}.
  let occupancyCount: NetId | null = null;
  if (typeof occ === 'object' && 'count' in occ) {
    const ops = (codes: readonly number[] | undefined): NetId =>
      opNet === undefined || !codes || codes.length === 0
        ? e.k(0, 1)
        : e.and(accepted, e.or(...codes.map((code) => e.eq(opNet, code))));
    const liveOr = e.or(shifting, live);
    const reg = (name: string, width: number, next: (self: NetId) => NetId, en: (self: NetId) => NetId): NetId => {
      const q = e.net(width, `ctl_occupancy_${name}`, true);
      chain.push({
        net: q,
        name: `ctl_occupancy_${name}`,
        set: (shiftIn) => e.reg(q, e.mux(shifting, shiftIn, next(q)), e.or(shifting, en(q)), 0n, rst),
      });
      return q;
    };
    const up = reg(
      'up',
      1,
      () => ops(o.insertOps),
      () => liveOr,
    );
    const down = reg(
      'down',
      1,
      () => ops(o.removeOps),
      () => liveOr,
    );
    const clr = reg(
      'clr',
      1,
      () => ops(o.clearOps),
      () => liveOr,
    );
    const zeroH = e.k(0, H);
    const lo = reg(
      'lo',
      H,
      (q) => e.mux(clr, zeroH, e.mux(up, e.inc(q), e.dec(q))),
      () => e.and(live, e.or(clr, up, down)),
    );
    const cyUp = reg(
      'cy_up',
      1,
      () => e.and(up, e.not(clr), e.eq(lo, 2 ** H - 1)),
      () => liveOr,
    );
    const cyDown = reg(
      'cy_down',
      1,
      () => e.and(down, e.not(clr), e.eq(lo, 0)),
      () => liveOr,
    );
    const hi = reg(
      'hi',
      H,
      (q) => e.mux(clr, zeroH, e.mux(cyUp, e.inc(q), e.dec(q))),
      () => e.and(live, e.or(clr, cyUp, cyDown)),
    );
    const hiUp = e.net(H, 'ctl_occupancy_hi_up');
    e.addArith(hiUp, hi, e.fit(cyUp, H));
    const hiNow = e.net(H, 'ctl_occupancy_hi_now');
    e.subArith(hiNow, hiUp, e.fit(cyDown, H));
    occupancyCount = e.cat(hiNow, lo);
  }

  // The chain: V = {chain[0], chain[1], …, pad}; a shift moves it one word toward the top.
  const bits = chain.reduce((s, x) => s + e.w(x.net), 0);
  const words = Math.max(1, Math.ceil(bits / CONTROL_WORD));
  const padW = words * CONTROL_WORD - bits;
  if (padW > 0) {
    const pad = e.net(padW, 'ctl_chain_pad', true);
    chain.push({ net: pad, name: 'ctl_chain_pad', set: (next) => e.reg(pad, next, shifting) });
  }
  const V = e.cat(...chain.map((x) => x.net));
  const total = words * CONTROL_WORD;
  const head = e.slice(V, total - CONTROL_WORD, CONTROL_WORD);
  const S = e.cat(V, e.mux(scanLoad, wdata, head));
  let top = total;
  for (const x of chain) {
    const w = e.w(x.net);
    top -= w;
    x.set(e.slice(S, top, w));
  }

  const rdAll = rdSel.length === 0 ? e.k(0, CONTROL_WORD) : undefined;
  let rdata = rdAll;
  if (rdata === undefined) {
    const width = maxChunks * CONTROL_WORD;
    let word = e.fit(rdSel[0]!, width);
    for (let mi = 1; mi < rdSel.length; mi++) word = e.mux(e.eq(selQ, mi), e.fit(rdSel[mi]!, width), word);
    const shiftBy = e.cat(chunkQ, e.k(0, 5));
    rdata = e.slice(e.shr(word, shiftBy), 0, CONTROL_WORD);
  }
  const occupancy =
    occupancyCount ?? (occupancyNet === null ? e.k(0, CONTROL_WORD) : e.fit(occupancyNet, CONTROL_WORD));
  const sources = [head, rdata, ...counterReads.slice(0, 5), e.k(words, CONTROL_WORD), counterReads[5]!, occupancy];
  let out = sources[0]!;
  for (let j = 1; j < sources.length; j++) out = e.mux(e.eq(rsel, j), sources[j]!, out);
  output(
    'ctl_rdata',
    out,
    'control: by ctl_rsel — 0 chain head word, 1 block RAM chunk, 2 requests, 3 inserts, 4 responses, 5 hits, 6 stalls, 7 chain words, 8 aging events, 9 occupancy estimate',
  );

  const map: ControlMap = {
    chain: chain.map((x) => ({ name: x.name, width: e.w(x.net) })),
    words,
    memories: memories.map(({ c }) => ({
      name: c.name,
      width: c.width,
      depth: c.depth,
      chunks: Math.ceil(c.width / CONTROL_WORD),
    })),
    counters: counterNames.map((n, j) => ({ name: `ctl_${n}`, rsel: j < 5 ? 2 + j : 8 })),
    occupancy:
      occ === undefined ? null : typeof occ === 'string' ? occ : 'count' in occ ? 'ctl_occupancy' : occ.join(','),
  };
  return runPasses({
    ...d,
    name: `${d.name}_ctl`,
    nets: e.nets,
    cells: e.cells,
    inputs,
    outputs,
    meta: { ...d.meta, control: map },
  });
}
