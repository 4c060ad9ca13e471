/**
 * Snapshots through the control port (./port.ts): the whole state of a filter — every register
 * (the scan chain, counters included) and every block RAM word — read out while the pipeline is
 * frozen, and written back into the same design (a fresh simulator, or the hardware: the port is
 * the same) so that it goes on as if it had never stopped. The sequences below are the ones a
 * host drives on the hardware's port; here they drive a simulation engine.
 *
 * take:    ctl_freeze 1 for one cycle (the block RAM read registers are captured), then `words`
 *          cycles of ctl_scan (reading ctl_scan_out before each: the chain rotates back to where
 *          it was), then for every memory, word and chunk one cycle of ctl_mem_rd (the chunk is on
 *          ctl_mem_rdata the cycle after). Leaves the design frozen.
 * restore: ctl_freeze 1 for one cycle, then per word its chunks into the buffer (ctl_mem_stage)
 *          and one ctl_mem_wr, then `words` cycles of ctl_scan with ctl_scan_load. Leaves the
 *          design frozen; `release` lowers ctl_freeze.
 */
import type { Engine } from '../../sim/engine.js';
import type { Design } from '../ir/types.js';
import { ConfigError } from '../util/errors.js';
import { CONTROL_WORD, type ControlMap } from '../transforms/control.js';

export interface Snapshot {
  format: 'bloomforge-snapshot-1';
  design: string;
  /** Registers in chain order, values in hex. */
  registers: { name: string; width: number; value: string }[];
  memories: { name: string; width: number; depth: number; words: string[] }[];
}

export function controlMap(d: Design): ControlMap {
  const m = d.meta.control as ControlMap | undefined;
  if (!m) throw new Error(`design '${d.name}' has no control port (generate --control regs)`);
  return m;
}

const CTL_INPUTS = [
  'ctl_scan',
  'ctl_scan_load',
  'ctl_mem_sel',
  'ctl_mem_addr',
  'ctl_mem_chunk',
  'ctl_mem_rd',
  'ctl_mem_stage',
  'ctl_mem_wr',
  'ctl_wdata',
  'ctl_rsel',
] as const;

function idle(e: Engine): void {
  for (const n of CTL_INPUTS) e.poke(n, 0);
}

const MASK = (1n << BigInt(CONTROL_WORD)) - 1n;

/** ctl_rsel values (src/transforms/control.ts). */
export const RSEL = { chain: 0, memory: 1, chainWords: 7, occupancy: 9 } as const;

/** A counter's value through ctl_rdata (any time, frozen or not; combinational from ctl_rsel). */
export function readCounter(e: Engine, name: string): bigint {
  const c = controlMap(e.design).counters.find((x) => x.name === name || x.name === `ctl_${name}`);
  if (!c) throw new Error(`no counter '${name}'`);
  e.poke('ctl_rsel', c.rsel);
  const v = e.peek('ctl_rdata');
  e.poke('ctl_rsel', 0);
  return v;
}

/** The occupancy estimate through ctl_rdata (ctl_rsel 9; 0 where the family names none). */
export function readOccupancy(e: Engine): bigint {
  e.poke('ctl_rsel', RSEL.occupancy);
  const v = e.peek('ctl_rdata');
  e.poke('ctl_rsel', 0);
  return v;
}

/** The chain, word by word from the top (V = {chain[0], chain[1], …}), split into its registers. */
function readChain(e: Engine, map: ControlMap): Snapshot['registers'] {
  let V = 0n;
  e.poke('ctl_scan', 1);
  for (let i = 0; i < map.words; i++) {
    V = (V << BigInt(CONTROL_WORD)) | e.peek('ctl_rdata');
    e.step();
  }
  e.poke('ctl_scan', 0);
  const total = map.words * CONTROL_WORD;
  let top = total;
  return map.chain.map((x) => {
    top -= x.width;
    const value = (V >> BigInt(top)) & ((1n << BigInt(x.width)) - 1n);
    return { name: x.name, width: x.width, value: value.toString(16) };
  });
}

/** Every block RAM word, chunk by chunk through ctl_mem_rd. */
function readMemories(e: Engine, map: ControlMap): Snapshot['memories'] {
  e.poke('ctl_rsel', RSEL.memory);
  return map.memories.map((m, sel) => {
    e.poke('ctl_mem_sel', sel);
    const words: string[] = [];
    for (let a = 0; a < m.depth; a++) {
      e.poke('ctl_mem_addr', a);
      let w = 0n;
      for (let c = 0; c < m.chunks; c++) {
        e.poke('ctl_mem_chunk', c);
        e.poke('ctl_mem_rd', 1);
        e.step();
        w |= (e.peek('ctl_rdata') & MASK) << BigInt(c * CONTROL_WORD);
      }
      words.push((w & ((1n << BigInt(m.width)) - 1n)).toString(16));
    }
    return { name: m.name, width: m.width, depth: m.depth, words };
  });
}

/** Freeze the design and read its whole state (see the header). */
export function takeSnapshot(e: Engine): Snapshot {
  const map = controlMap(e.design);
  idle(e);
  e.poke('ctl_freeze', 1);
  e.step();
  const registers = readChain(e, map);
  const memories = readMemories(e, map);
  idle(e);
  return { format: 'bloomforge-snapshot-1', design: e.design.name, registers, memories };
}

/** Every block RAM word: its chunks into the write buffer (ctl_mem_stage), then one ctl_mem_wr. */
function writeMemories(e: Engine, map: ControlMap, s: Snapshot): void {
  map.memories.forEach((m, sel) => {
    e.poke('ctl_mem_sel', sel);
    const words = s.memories[sel]!.words;
    for (let a = 0; a < m.depth; a++) {
      const w = BigInt('0x' + words[a]!);
      e.poke('ctl_mem_addr', a);
      e.poke('ctl_mem_wr', 0);
      e.poke('ctl_mem_stage', 1);
      for (let c = 0; c < m.chunks; c++) {
        e.poke('ctl_mem_chunk', c);
        e.poke('ctl_wdata', (w >> BigInt(c * CONTROL_WORD)) & MASK);
        e.step();
      }
      e.poke('ctl_mem_stage', 0);
      e.poke('ctl_mem_wr', 1);
      e.step();
    }
    e.poke('ctl_mem_wr', 0);
  });
}

/** The registers into the chain: `words` shifts with ctl_scan_load, the top word first. */
function writeChain(e: Engine, map: ControlMap, s: Snapshot): void {
  let V = 0n;
  for (const r of s.registers) V = (V << BigInt(r.width)) | BigInt('0x' + r.value);
  const pad = map.words * CONTROL_WORD - s.registers.reduce((t, r) => t + r.width, 0);
  V <<= BigInt(pad);
  e.poke('ctl_scan', 1);
  e.poke('ctl_scan_load', 1);
  for (let i = map.words - 1; i >= 0; i--) {
    e.poke('ctl_wdata', (V >> BigInt(i * CONTROL_WORD)) & MASK);
    e.step();
  }
}

/** Freeze the design and write a snapshot into it (see the header). */
export function restoreSnapshot(e: Engine, s: Snapshot): void {
  const map = controlMap(e.design);
  checkSnapshot(s, map, e.design.name, 'snapshot');
  idle(e);
  e.poke('ctl_freeze', 1);
  e.step();
  writeMemories(e, map, s);
  writeChain(e, map, s);
  idle(e);
}

/** Lower ctl_freeze: the next edge is the pipeline's. */
export function release(e: Engine): void {
  idle(e);
  e.poke('ctl_freeze', 0);
}

/** A snapshot read from a file must fit the design: every mismatch is one line naming the field. */
export function checkSnapshot(s: unknown, map: ControlMap, design: string, source: string): asserts s is Snapshot {
  const fail = (field: string, msg: string): never => {
    throw new ConfigError(`${source}: field '${field}': ${msg}`);
  };
  if (typeof s !== 'object' || s === null) fail('format', 'not a snapshot object');
  const o = s as Partial<Snapshot>;
  if (o.format !== 'bloomforge-snapshot-1') fail('format', `must be 'bloomforge-snapshot-1'`);
  if (o.design !== design) fail('design', `is '${String(o.design)}', the design is '${design}'`);
  const regs = o.registers;
  if (!Array.isArray(regs) || regs.length !== map.chain.length)
    fail('registers', `must list the ${map.chain.length} registers of the chain`);
  regs!.forEach((r, i) => {
    const want = map.chain[i]!;
    if (r.name !== want.name || r.width !== want.width)
      fail(`registers[${i}]`, `is ${r.name} (${r.width} bits), the chain has ${want.name} (${want.width} bits)`);
    if (!/^[0-9a-f]+$/.test(r.value) || BigInt('0x' + r.value) >> BigInt(r.width) !== 0n)
      fail(`registers[${i}].value`, `must be hex of at most ${r.width} bits`);
  });
  const mems = o.memories;
  if (!Array.isArray(mems) || mems.length !== map.memories.length)
    fail('memories', `must list the ${map.memories.length} block RAMs`);
  mems!.forEach((m, i) => {
    const want = map.memories[i]!;
    if (m.name !== want.name || m.width !== want.width || m.depth !== want.depth)
      fail(
        `memories[${i}]`,
        `is ${m.name} ${m.width}x${m.depth}, the design has ${want.name} ${want.width}x${want.depth}`,
      );
    if (!Array.isArray(m.words) || m.words.length !== want.depth)
      fail(`memories[${i}].words`, `must have ${want.depth} words`);
    m.words.forEach((w, a) => {
      if (!/^[0-9a-f]+$/.test(w) || BigInt('0x' + w) >> BigInt(want.width) !== 0n)
        fail(`memories[${i}].words[${a}]`, `must be hex of at most ${want.width} bits`);
    });
  });
}
