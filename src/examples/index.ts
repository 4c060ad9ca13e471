/**
 * Generic example designs that exercise every cell kind and width class. Each is a golden file
 * under generated/examples/ and is co-simulated on every engine by the tests.
 */
import { ModuleBuilder, type Sig } from '../dsl/module.js';
import type { Design } from '../ir/types.js';

/** 8-bit counter with enable and synchronous reset. */
export function counter(): Design {
  const m = new ModuleBuilder('counter');
  const en = m.input('en', 1, 'count when high');
  const count = m.reg('count', 8);
  count.next(m.mux(en, count.add(1), count));
  m.output('count', count, 'current count');
  m.output('wrap', count.eq(255).and(en), 'high on the cycle the count wraps');
  return m.build();
}

/** Synchronous FIFO, 16 x 8 bits in a block RAM, with full/empty and show-ahead-free read. */
export function fifo(): Design {
  const m = new ModuleBuilder('fifo');
  const depthBits = 4;
  const push = m.input('push', 1, 'write din when not full');
  const din = m.input('din', 8, 'data in');
  const pop = m.input('pop', 1, 'read when not empty; dout valid next cycle');
  const wp = m.reg('wr_ptr', depthBits + 1);
  const rp = m.reg('rd_ptr', depthBits + 1);
  const empty = wp.eq(rp);
  const full = wp
    .slice(depthBits, depthBits)
    .ne(rp.slice(depthBits, depthBits))
    .and(wp.slice(depthBits - 1, 0).eq(rp.slice(depthBits - 1, 0)));
  const doPush = push.and(full.not());
  const doPop = pop.and(empty.not());
  const mem = m.memory('fifo_mem', { width: 8, depth: 1 << depthBits, readDuringWrite: 'old' });
  mem.write(wp.slice(depthBits - 1, 0), din, doPush);
  const dout = mem.read(rp.slice(depthBits - 1, 0), doPop);
  wp.next(m.mux(doPush, wp.add(1), wp));
  rp.next(m.mux(doPop, rp.add(1), rp));
  const valid = m.reg('dout_valid', 1);
  valid.next(doPop);
  m.output('dout', dout, 'data popped on the previous cycle');
  m.output('dout_valid', valid, 'dout holds a popped value');
  m.output('full', full, 'no room for a push');
  m.output('empty', empty, 'nothing to pop');
  return m.build();
}

/** 1R1W RAM, 256 x 16 with a per-bit write mask; read-during-write returns the old data. */
export function ram(): Design {
  const m = new ModuleBuilder('ram1r1w');
  const ra = m.input('rd_addr', 8, 'read address');
  const re = m.input('rd_en', 1, 'read enable');
  const wa = m.input('wr_addr', 8, 'write address');
  const we = m.input('wr_en', 1, 'write enable');
  const wd = m.input('wr_data', 16, 'write data');
  const wm = m.input('wr_mask', 16, 'bits of wr_data to write');
  const mem = m.memory('mem', { width: 16, depth: 256, mask: true, readDuringWrite: 'old' });
  mem.write(wa, wd, we, wm);
  m.output('rd_data', mem.read(ra, re), 'mem[rd_addr] from the previous cycle with rd_en');
  return m.build();
}

/** A registered H3 hash unit from a keyBits-bit key to a 12-bit index. */
export function h3Unit(keyBits: number, seed = 1): Design {
  const m = new ModuleBuilder(`h3_k${keyBits}`);
  const key = m.input('key', keyBits, 'key to hash');
  const h = m.pipe(m.h3(key, 12, { seed, salt: 0 }), 1, 'hash');
  m.output('index', h, 'H3(key), one cycle later');
  m.output('index_comb', m.h3(key, 32, { seed, salt: 1 }), 'a second 32-bit H3 of key, same cycle');
  return m.build();
}

/** Every operator at one width, registered and combinational, for width classes 1..130+. */
export function wideArith(width: number): Design {
  const m = new ModuleBuilder(`arith_w${width}`);
  const a = m.input('a', width, 'operand a');
  const b = m.input('b', width, 'operand b');
  const s = m.input('s', 8, 'shift amount');
  const sel = m.input('sel', 1, 'mux select');
  const outs: [string, Sig][] = [
    ['sum', a.add(b)],
    ['diff', a.sub(b)],
    ['band', a.and(b)],
    ['bor', a.or(b)],
    ['bxor', a.xor(b)],
    ['inv', a.not()],
    ['shl', a.shl(s)],
    ['shr', a.shr(s)],
    ['pick', m.mux(sel, a, b)],
    ['swap', width > 1 ? m.cat(a.slice(width - 2, 0), a.bit(width - 1)) : a],
    ['cmp', m.cat(a.eq(b), a.ne(b), a.lt(b), a.le(b), a.gt(b), a.ge(b))],
    ['red', m.cat(a.all(), a.any(), a.parity())],
    ['konst', a.xor(m.const((1n << BigInt(width)) - 1n - (1n << BigInt(width >> 1)), width))],
  ];
  if (width >= 4) outs.push(['mid', a.slice(width - 2, 1)]);
  const acc = m.reg('acc', width, { en: sel });
  acc.next(acc.add(a).xor(b));
  outs.push(['acc', acc]);
  for (const [name, sig] of outs) m.output(name, sig, name);
  return m.build();
}

/**
 * The simulator benchmark design (like the probe in hardware.md): a key is hashed by 8 H3
 * units, each selects a word of its own 256 x 16 block RAM bank; a registered read-modify-write
 * sets one bit per bank and the AND of the 8 selected bits is the membership answer.
 */
export function h3Banks(keyBits = 64, banks = 8, seed = 7): Design {
  const m = new ModuleBuilder(`h3_banks${banks}`);
  const valid = m.input('valid', 1, 'a key is presented');
  const insert = m.input('insert', 1, "set the key's bits (otherwise query only)");
  const key = m.input('key', keyBits, 'key');
  const v1 = m.pipe(valid, 1, 'valid');
  const ins1 = m.pipe(insert, 1, 'insert');
  const hits: Sig[] = [];
  for (let b = 0; b < banks; b++) {
    m.scope(`bank${b}`, () => {
      const h = m.pipe(m.h3(key, 12, { seed, salt: b }), 1, 'hash'); // 8-bit word + 4-bit bit index
      const addr = h.slice(11, 4);
      const bitSel = h.slice(3, 0);
      const mem = m.memory('ram', { width: 16, depth: 256, readDuringWrite: 'undefined' });
      const word = mem.read(addr, v1);
      const addr2 = m.pipe(addr, 1, 'addr');
      const bit2 = m.pipe(bitSel, 1, 'bit');
      const v2 = m.pipe(v1, 1, 'valid');
      const ins2 = m.pipe(ins1, 1, 'insert');
      const onehot = m.const(1, 16).shl(bit2);
      hits.push(word.and(onehot).any());
      mem.write(addr2, word.or(onehot), v2.and(ins2));
    });
  }
  const all = hits.reduce((x, y) => x.and(y));
  m.output('hit', all, 'all 8 bits were set (two cycles after valid)');
  return m.build();
}

/**
 * Vectors built one bit at a time, as filter generators build thermometer codes and per-bit
 * enables: a 16-bit thermometer register shifted up or down through per-bit muxes, 36 per-bit
 * gates over two words with displaced bit selects and constants, and a bit shared by several
 * vectors. The compiled simulator evaluates such vectors as word operations (sim/lift.ts).
 */
export function bitBlast(): Design {
  const m = new ModuleBuilder('bitblast');
  const x = m.input('x', 40, 'data');
  const y = m.input('y', 40, 'data');
  const sel = m.input('sel', 1, 'shift the thermometer this cycle');
  const dir = m.input('dir', 1, 'shift direction: 1 up (fill with ones), 0 down');
  const therm = m.reg('therm', 16);
  const next: Sig[] = [];
  for (let j = 15; j >= 0; j--) {
    const up = j === 0 ? m.const(1, 1) : therm.bit(j - 1);
    const down = j === 15 ? m.const(0, 1) : therm.bit(j + 1);
    next.push(m.mux(sel, m.mux(dir, up, down), therm.bit(j)));
  }
  therm.next(m.cat(...next));
  const shared = x.bit(3).xor(y.bit(5));
  const gates: Sig[] = [];
  for (let j = 35; j >= 0; j--) {
    if (j === 7 || j === 33) gates.push(shared);
    else if (j % 5 === 0) gates.push(m.const(j & 1, 1));
    else gates.push(m.mux(x.bit(39), x.bit(j).and(y.bit(j + 2)), x.bit(j + 1).not()));
  }
  m.output('therm', therm, 'thermometer code');
  m.output('gates', m.cat(...gates), 'per-bit gates');
  m.output('mixed', m.cat(x.slice(7, 0), shared, y.bit(0), x.slice(39, 30), shared.not(), y.bit(39)), 'mixed widths');
  return m.build();
}

export const EXAMPLES: Record<string, () => Design> = {
  bitblast: bitBlast,
  counter,
  fifo,
  ram1r1w: ram,
  h3_k32: () => h3Unit(32),
  h3_k64: () => h3Unit(64),
  h3_k128: () => h3Unit(128),
  ...Object.fromEntries([1, 31, 32, 33, 64, 65, 128, 130, 512].map((w) => [`arith_w${w}`, () => wideArith(w)])),
};
