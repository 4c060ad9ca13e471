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
import type { Design, MemoryCell, NetId, Port, RegCell } from '../ir/types.js';
import { Edit } from './controlEdit.js';

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

function portNet(d: Design, dir: 'in' | 'out', name: string): NetId {
  const p = (dir === 'in' ? d.inputs : d.outputs).find((x) => x.name === name);
  if (!p) throw new Error(`control port: the design '${d.name}' has no ${dir}put '${name}'`);
  return p.net;
}

/** The ports of the design with the control port: the design's, then the ones this pass adds. */
interface PortLists {
  inputs: Port[];
  outputs: Port[];
}

function addInput(e: Edit, ports: PortLists, name: string, width: number, doc: string): NetId {
  const n = e.net(width, name, true);
  ports.inputs.push({ name, net: n, doc });
  return n;
}

/** What the port exposes of the design: its block RAMs and registers (with their cell index). */
interface Exposed {
  memories: { c: MemoryCell; i: number }[];
  regs: { c: RegCell; i: number }[];
  /** 32-bit chunks of the widest block RAM word (at least 1). */
  maxChunks: number;
  /** Bits of the widest block RAM read address (at least 1). */
  addrBits: number;
}

function collectExposed(d: Design, e: Edit): Exposed {
  const memories = d.cells.flatMap((c, i) => (c.kind === 'memory' ? [{ c, i }] : []));
  const regs = d.cells.flatMap((c, i) => (c.kind === 'reg' ? [{ c, i }] : []));
  const maxChunks = Math.max(1, ...memories.map((m) => Math.ceil(m.c.width / CONTROL_WORD)));
  const addrBits = Math.max(1, ...memories.map((m) => e.w(m.c.rdAddr)));
  return { memories, regs, maxChunks, addrBits };
}

/** The ctl_* inputs, and the two conditions every phase gates with. */
interface ControlInputs {
  freeze: NetId;
  scan: NetId;
  scanLoad: NetId;
  memSel: NetId;
  memAddr: NetId;
  memChunk: NetId;
  memRd: NetId;
  memStage: NetId;
  memWr: NetId;
  wdata: NetId;
  rsel: NetId;
  /** Not frozen: the pipeline runs. */
  live: NetId;
  /** Frozen and ctl_scan: the chain shifts. */
  shifting: NetId;
}

function addControlInputs(e: Edit, ports: PortLists, x: Exposed): ControlInputs {
  const input = (name: string, width: number, doc: string): NetId => addInput(e, ports, name, width, doc);
  const freeze = input(
    'ctl_freeze',
    1,
    'control: 1 stops the pipeline (registers hold, block RAM ports off, no handshake)',
  );
  const scan = input('ctl_scan', 1, 'control (frozen): shift the register chain one 32-bit word');
  const scanLoad = input('ctl_scan_load', 1, 'control: with ctl_scan, shift in ctl_wdata instead of the leaving word');
  const memSel = input(
    'ctl_mem_sel',
    clog2(x.memories.length),
    "control: block RAM, in the manifest's control.memories order",
  );
  const memAddr = input('ctl_mem_addr', x.addrBits, 'control: block RAM word address');
  const memChunk = input(
    'ctl_mem_chunk',
    clog2(x.maxChunks),
    'control: 32-bit chunk of the word (chunk 0 = bits 31:0)',
  );
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
  return { freeze, scan, scanLoad, memSel, memAddr, memChunk, memRd, memStage, memWr, wdata, rsel, live, shifting };
}

/** The handshake nets; in_ready and out_valid the core's (the ports show them gated). */
interface Handshake {
  inValid: NetId;
  outReady: NetId;
  inReady: NetId;
  outValid: NetId;
}

/** Handshakes: none completes while frozen; the counters see the unfrozen ones. */
function gateHandshake(d: Design, e: Edit, ports: PortLists, live: NetId): Handshake {
  const { outputs } = ports;
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
  return { inValid, outReady, inReady, outValid };
}

/** Control-side state outside the chain: the memory write buffer and the read's select/chunk. */
interface MemoryAccess {
  wbuf: NetId;
  selQ: NetId;
  chunkQ: NetId;
}

function addWriteBuffer(e: Edit, ctl: ControlInputs, maxChunks: number): MemoryAccess {
  const bufChunks = Array.from({ length: maxChunks }, (_, j) => {
    const r = e.net(CONTROL_WORD, `ctl_wbuf_${j}`, true);
    e.reg(r, ctl.wdata, e.and(ctl.freeze, ctl.memStage, e.eq(ctl.memChunk, j)));
    return r;
  });
  const wbuf = e.cat(...[...bufChunks].reverse());
  const selQ = e.net(e.w(ctl.memSel), 'ctl_sel_q', true);
  e.reg(selQ, ctl.memSel, null);
  const chunkQ = e.net(e.w(ctl.memChunk), 'ctl_chunk_q', true);
  e.reg(chunkQ, ctl.memChunk, null);
  return { wbuf, selQ, chunkQ };
}

/** A register of the chain: its output, and how to drive it given the word shifting into it. */
interface ChainMember {
  net: NetId;
  name: string;
  set: (next: NetId) => void;
}

/**
 * Every block RAM's ports muxed to the control port while frozen; its read word held (a chain
 * member) so that the design reads it until the first unfrozen cycle is over. Returns the held
 * words' chain members and the raw read words (what ctl_rdata's memory read shows).
 */
function rewireMemories(
  e: Edit,
  memories: Exposed['memories'],
  ctl: ControlInputs,
  acc: MemoryAccess,
  heldValid: NetId,
): { held: ChainMember[]; raw: NetId[] } {
  const { freeze, shifting } = ctl;
  const held: ChainMember[] = [];
  const raw: NetId[] = [];
  memories.forEach(({ c, i }, mi) => {
    const sel = e.and(freeze, e.eq(ctl.memSel, mi));
    const rd = e.net(c.width, `${c.name}_rd_raw`, true);
    const h = e.net(c.width, `ctl_${c.name}_held`, true);
    raw.push(rd);
    const addr = e.fit(ctl.memAddr, e.w(c.rdAddr));
    const mem: MemoryCell = {
      ...c,
      rdData: rd,
      rdAddr: e.mux(freeze, addr, c.rdAddr),
      rdEn: e.mux(freeze, e.and(sel, ctl.memRd), c.rdEn),
      wrAddr: e.mux(freeze, e.fit(ctl.memAddr, e.w(c.wrAddr)), c.wrAddr),
      wrEn: e.mux(freeze, e.and(sel, ctl.memWr), c.wrEn),
      wrData: e.mux(freeze, e.fit(acc.wbuf, c.width), c.wrData),
      wrMask: c.wrMask === null ? null : e.mux(freeze, e.k(-1n, c.width), c.wrMask),
    };
    e.replace(i, mem);
    e.muxInto(c.rdData, heldValid, h, rd);
    held.push({
      net: h,
      name: `ctl_${c.name}_held`,
      set: (next) => e.reg(h, e.mux(shifting, next, rd), e.or(shifting, e.and(freeze, e.not(heldValid)))),
    });
  });
  return { held, raw };
}

/** The design's registers as chain members: each holds while frozen and shifts with the chain. */
function registerMembers(e: Edit, regs: Exposed['regs'], ctl: ControlInputs): ChainMember[] {
  const { shifting, live } = ctl;
  return regs.map(({ c, i }) => ({
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
}

const COUNTER_NAMES = ['requests', 'inserts', 'responses', 'hits', 'stalls', 'events'] as const;

/** What the counters and the occupancy count see. */
interface CountedEvents {
  rst: NetId | null;
  opNet: NetId | undefined;
  /** Accepted requests (unfrozen). */
  accepted: NetId;
  /** One condition per counter, in COUNTER_NAMES order. */
  conds: NetId[];
  /** The design's occupancy register(s) (null: none, or the port's own count). */
  occupancyNet: NetId | null;
}

/** A net of the design by name (undefined: none asked for). */
function namedNet(d: Design, e: Edit, name: string | undefined, what: string): NetId | null {
  if (name === undefined) return null;
  const n = e.nets.findIndex((x) => x.name === name);
  if (n < 0) throw new Error(`control port: ${what} register '${name}' is not in design '${d.name}'`);
  return n;
}

/** The aging events' net (see ControlEvents; null: the family names none). */
function eventNet(d: Design, e: Edit, events: ControlEvents | undefined): NetId | null {
  if (typeof events === 'string') return namedNet(d, e, events, 'events');
  if (!events) return null;
  const q = namedNet(d, e, events.reg, 'events')!;
  const r = d.cells.find((c): c is RegCell => c.kind === 'reg' && c.out === q);
  if (!r) throw new Error(`control port: events: '${events.reg}' is not a register of '${d.name}'`);
  const en = r.en === null ? e.k(1, 1) : r.en;
  return 'rises' in events ? e.and(en, e.cmp('ugt', r.d, q)) : e.and(en, e.eq(q, events.from), e.eq(r.d, events.to));
}

function countedEvents(d: Design, e: Edit, o: ControlOptions, hs: Handshake, live: NetId): CountedEvents {
  const rst = d.inputs.find((p) => p.name === 'rst')?.net ?? null;
  const accepted = e.and(hs.inValid, hs.inReady, live);
  const opNet = d.inputs.find((p) => p.name === 'in_op')?.net;
  const inserting =
    opNet === undefined || o.insertOps.length === 0
      ? e.k(0, 1)
      : e.and(accepted, e.or(...o.insertOps.map((code) => e.eq(opNet, code))));
  const responded = e.and(hs.outValid, hs.outReady, live);
  const hitNet = d.outputs.find((p) => p.name === 'out_hit')?.net;
  const hit = hitNet === undefined ? e.k(0, 1) : e.and(responded, e.fit(hitNet, 1));
  const stalled = e.and(hs.inValid, e.not(hs.inReady), live);
  const ev = eventNet(d, e, o.events);
  const occ = o.occupancy;
  const occupancyNet =
    occ === undefined || (typeof occ === 'object' && 'count' in occ)
      ? null
      : typeof occ === 'string'
        ? namedNet(d, e, occ, 'occupancy')
        : e.cat(...occ.map((n) => namedNet(d, e, n, 'occupancy')!));
  // A register pulse: counted when it is high in an unfrozen cycle.
  const events = ev === null ? e.k(0, 1) : e.and(e.fit(ev, 1), live);
  return { rst, opNet, accepted, conds: [accepted, inserting, responded, hit, stalled, events], occupancyNet };
}

const H = CONTROL_WORD / 2;

/**
 * Each counter is pipelined off the pipeline's paths: the event is registered (ev), counted into
 * a 16-bit low half the cycle after, and the low half's wrap is registered (cy) and counted into
 * the high half the cycle after that; the read value is {hi + cy, lo}, one cycle behind the
 * events. Every one of these registers holds while frozen and is in the chain.
 */
function addCounters(e: Edit, ev: CountedEvents, ctl: ControlInputs): { members: ChainMember[]; reads: NetId[] } {
  const { shifting, live } = ctl;
  const { rst } = ev;
  const members: ChainMember[] = [];
  const reads = ev.conds.map((cond, j) => {
    const n = COUNTER_NAMES[j]!;
    const evq = e.net(1, `ctl_${n}_ev`, true);
    const lo = e.net(H, `ctl_${n}_lo`, true);
    const cy = e.net(1, `ctl_${n}_cy`, true);
    const hi = e.net(H, `ctl_${n}_hi`, true);
    const liveOr = e.or(shifting, live);
    members.push(
      { net: evq, name: `ctl_${n}_ev`, set: (next) => e.reg(evq, e.mux(shifting, next, cond), liveOr, 0n, rst) },
      {
        net: lo,
        name: `ctl_${n}_lo`,
        set: (next) => e.reg(lo, e.mux(shifting, next, e.inc(lo)), e.or(shifting, e.and(live, evq)), 0n, rst),
      },
      {
        net: cy,
        name: `ctl_${n}_cy`,
        set: (next) => e.reg(cy, e.mux(shifting, next, e.and(evq, e.eq(lo, 2 ** H - 1))), liveOr, 0n, rst),
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
  return { members, reads };
}

/**
 * The occupancy count ({ count: 'inserts' }): built like the counters (registered events, 16-bit
 * halves, the high half's step registered), counting up on inserts and down on removes, and
 * back to 0 on a clear; the read value is {hi + up − down, lo}.
 */
function addOccupancyCount(
  e: Edit,
  o: ControlOptions,
  ev: CountedEvents,
  ctl: ControlInputs,
): { members: ChainMember[]; read: NetId } {
  const { shifting, live } = ctl;
  const { opNet, accepted, rst } = ev;
  const members: ChainMember[] = [];
  const ops = (codes: readonly number[] | undefined): NetId =>
    opNet === undefined || !codes || codes.length === 0
      ? e.k(0, 1)
      : e.and(accepted, e.or(...codes.map((code) => e.eq(opNet, code))));
  const liveOr = e.or(shifting, live);
  const reg = (name: string, width: number, next: (self: NetId) => NetId, en: (self: NetId) => NetId): NetId => {
    const q = e.net(width, `ctl_occupancy_${name}`, true);
    members.push({
      net: q,
      name: `ctl_occupancy_${name}`,
      set: (shiftIn) => e.reg(q, e.mux(shifting, shiftIn, next(q)), e.or(shifting, en(q)), 0n, rst),
    });
    return q;
  };
  const flag = (name: string, next: () => NetId): NetId => reg(name, 1, next, () => liveOr);
  const up = flag('up', () => ops(o.insertOps));
  const down = flag('down', () => ops(o.removeOps));
  const clr = flag('clr', () => ops(o.clearOps));
  const zeroH = e.k(0, H);
  const lo = reg(
    'lo',
    H,
    (q) => e.mux(clr, zeroH, e.mux(up, e.inc(q), e.dec(q))),
    () => e.and(live, e.or(clr, up, down)),
  );
  const cyUp = flag('cy_up', () => e.and(up, e.not(clr), e.eq(lo, 2 ** H - 1)));
  const cyDown = flag('cy_down', () => e.and(down, e.not(clr), e.eq(lo, 0)));
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
  return { members, read: e.cat(hiNow, lo) };
}

/**
 * The chain: V = {chain[0], chain[1], …, pad}; a shift moves it one word toward the top. Pads the
 * chain (in place) to whole words and drives every member; returns the head word and the length.
 */
function buildChain(e: Edit, chain: ChainMember[], ctl: ControlInputs): { head: NetId; words: number } {
  const { shifting } = ctl;
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
  const S = e.cat(V, e.mux(ctl.scanLoad, ctl.wdata, head));
  let top = total;
  for (const x of chain) {
    const w = e.w(x.net);
    top -= w;
    x.set(e.slice(S, top, w));
  }
  return { head, words };
}

/** What ctl_rdata can show, before its mux. */
interface ReadSources {
  head: NetId;
  words: number;
  /** The block RAMs' raw read words. */
  raw: NetId[];
  /** The counters' read values, in COUNTER_NAMES order. */
  counters: NetId[];
  /** The port's occupancy count (null: the design's register, or none). */
  occupancyCount: NetId | null;
  occupancyNet: NetId | null;
}

/** The 32-bit chunk chunkQ of the word the ctl_mem_rd one cycle earlier read (selQ's block RAM). */
function memoryReadChunk(e: Edit, raw: NetId[], acc: MemoryAccess, maxChunks: number): NetId {
  if (raw.length === 0) return e.k(0, CONTROL_WORD);
  const width = maxChunks * CONTROL_WORD;
  let word = e.fit(raw[0]!, width);
  for (let mi = 1; mi < raw.length; mi++) word = e.mux(e.eq(acc.selQ, mi), e.fit(raw[mi]!, width), word);
  const shiftBy = e.cat(acc.chunkQ, e.k(0, 5));
  return e.slice(e.shr(word, shiftBy), 0, CONTROL_WORD);
}

/** ctl_rdata: a mux by ctl_rsel (see the header). */
function addReadMux(
  e: Edit,
  ports: PortLists,
  ctl: ControlInputs,
  src: ReadSources,
  acc: MemoryAccess,
  maxChunks: number,
): void {
  const rdata = memoryReadChunk(e, src.raw, acc, maxChunks);
  const occupancy =
    src.occupancyCount ?? (src.occupancyNet === null ? e.k(0, CONTROL_WORD) : e.fit(src.occupancyNet, CONTROL_WORD));
  const c = src.counters;
  const sources = [src.head, rdata, ...c.slice(0, 5), e.k(src.words, CONTROL_WORD), c[5]!, occupancy];
  let out = sources[0]!;
  for (let j = 1; j < sources.length; j++) out = e.mux(e.eq(ctl.rsel, j), sources[j]!, out);
  ports.outputs.push({
    name: 'ctl_rdata',
    net: out,
    doc: 'control: by ctl_rsel — 0 chain head word, 1 block RAM chunk, 2 requests, 3 inserts, 4 responses, 5 hits, 6 stalls, 7 chain words, 8 aging events, 9 occupancy estimate',
  });
}

function mapOf(
  e: Edit,
  chain: ChainMember[],
  words: number,
  x: Exposed,
  occ: ControlOccupancy | undefined,
): ControlMap {
  return {
    chain: chain.map((m) => ({ name: m.name, width: e.w(m.net) })),
    words,
    memories: x.memories.map(({ c }) => ({
      name: c.name,
      width: c.width,
      depth: c.depth,
      chunks: Math.ceil(c.width / CONTROL_WORD),
    })),
    counters: COUNTER_NAMES.map((n, j) => ({ name: `ctl_${n}`, rsel: j < 5 ? 2 + j : 8 })),
    occupancy:
      occ === undefined ? null : typeof occ === 'string' ? occ : 'count' in occ ? 'ctl_occupancy' : occ.join(','),
  };
}

/** The design with the control port (see the header), and its map in `meta.control`. */
export function withControl(d: Design, o: ControlOptions): Design {
  const e = new Edit(d, captureLoc());
  const ports: PortLists = { inputs: [...d.inputs], outputs: [...d.outputs] };
  const x = collectExposed(d, e);
  const ctl = addControlInputs(e, ports, x);
  const hs = gateHandshake(d, e, ports, ctl.live);
  const acc = addWriteBuffer(e, ctl, x.maxChunks);

  // Chain members: the design's registers, then the read holds, then the counters.
  const heldValid = e.net(1, 'ctl_held_valid', true);
  const mems = rewireMemories(e, x.memories, ctl, acc, heldValid);
  const chain: ChainMember[] = [
    ...registerMembers(e, x.regs, ctl),
    ...mems.held,
    {
      net: heldValid,
      name: 'ctl_held_valid',
      set: (next) => e.reg(heldValid, e.mux(ctl.shifting, next, ctl.freeze), null),
    },
  ];
  const ev = countedEvents(d, e, o, hs, ctl.live);
  const counters = addCounters(e, ev, ctl);
  chain.push(...counters.members);
  const occ = o.occupancy;
  const count = typeof occ === 'object' && 'count' in occ ? addOccupancyCount(e, o, ev, ctl) : null;
  if (count) chain.push(...count.members);

  const { head, words } = buildChain(e, chain, ctl);
  addReadMux(
    e,
    ports,
    ctl,
    {
      head,
      words,
      raw: mems.raw,
      counters: counters.reads,
      occupancyCount: count?.read ?? null,
      occupancyNet: ev.occupancyNet,
    },
    acc,
    x.maxChunks,
  );
  return runPasses({
    ...d,
    name: `${d.name}_ctl`,
    nets: e.nets,
    cells: e.cells,
    ...ports,
    meta: { ...d.meta, control: mapOf(e, chain, words, x, occ) },
  });
}
