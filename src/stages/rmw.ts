/**
 * Stage: read-modify-write of a block RAM bank with write forwarding, one op per cycle.
 *
 * Timing (relative to the cycle R in which an op presents its read address): the block RAM
 * returns the word at R+1 (its own output register), the word is registered at the end of R+1
 * (`rdq`), the op modifies it in R+2 and writes it at the end of R+2. So two writes land after
 * an op read its word: the op two ahead writes at the op's own read edge (a read-during-write
 * collision, whose result the memory, declared 'undefined', does not define), the op one ahead
 * at the end of R+1. Forwarding replaces the stale word with the word those
 * ops wrote, so every op sees the result of every earlier op: back-to-back ops on one word give
 * the sequential answers.
 *
 * `registeredMatch`: "a write (of `writeAddr`, when `write`) meets a read of `readAddr`",
 *   compared now and registered, so the forwarding select is a register one cycle later (the
 *   compare never sits between the block RAM output and the register it feeds).
 * `forwardedRead`: the forwarding network. Registers `fwd_data` (the word written last cycle;
 *   the caller gives its next value), `hit_a` (the op two ahead wrote this word: take
 *   `fwd_data` into `rdq` instead of the RAM's collided output), `same_next` and `hit_b` (the op
 *   one ahead writes this word: take `fwd_data` in R+2), `rdq`. Returns the corrected word of
 *   R+2. Every output bit is one LUT4 of registers and RAM ports.
 * `testAndSetColumn`: a Bloom filter column on top of it (APBF/APBBF): a W-bit word per address;
 *   an op tests one bit and an insert sets it; a clear port zeroes words through the same write
 *   port. Registers: those of `forwardedRead` plus `addr`, `addr5` (the address at R+1, R+2),
 *   `onehot` (2 stages; with `lateOnehot` the bit index `bit` at R+1 and `onehot` at R+2),
 *   `keep`, `take_fwd` and the match (`matchName`, registered at the end of R+2). Memory `ram`
 *   (width × depth, read-during-write 'undefined'). Latency: match valid at R+3. Guarantee: with
 *   forwarding, the match is the bit as left by every earlier op and clear (clears and inserts
 *   never address one column in the same cycle: the caller keeps inserts off a bank being
 *   cleared); `forwarding: false` exists to show that the tests catch the hazard
 *   (test/stages/rmw.test.ts, under read-during-write poisoning).
 */
import type { ModuleBuilder, Reg, Sig } from '../dsl/module.js';

export interface RegisteredMatchOptions {
  /** The write happens (omit: compare the addresses only). */
  write?: Sig;
  writeAddr: Sig;
  readAddr: Sig;
  /** Reset the register to 0 (default true). */
  reset?: boolean;
}

/** write && writeAddr == readAddr, registered as `name`. */
export function registeredMatch(m: ModuleBuilder, name: string, o: RegisteredMatchOptions): Sig {
  const same = o.writeAddr.eq(o.readAddr);
  return m.pipe(o.write ? o.write.and(same) : same, 1, name, o.reset === false ? { reset: null } : {});
}

export interface ForwardedReadOptions {
  /** The block RAM's read data (the read was issued in R with `addr`). */
  rd: Sig;
  /** The read address in R, and registered to R+1 and R+2. */
  addr: Sig;
  addr1: Sig;
  addr2: Sig;
  /** The op now in R+2 writes its word this cycle (a register). */
  writing: Sig;
  forwarding: boolean;
}

export interface ForwardedRead {
  /** The word written last cycle; the caller sets its next value (the word it writes now). */
  fwd: Reg;
  /** The RAM word registered at the end of R+1, corrected for the op two ahead. */
  rdq: Sig;
  /** The current word in R+2, corrected for the op one ahead too. */
  word: Sig;
  /** The op one ahead writes this word (valid in R+1): `word` takes `fwd` in R+2. */
  hitBNext: Sig;
}

export function forwardedRead(m: ModuleBuilder, o: ForwardedReadOptions): ForwardedRead {
  const fwd = m.reg('fwd_data', o.rd.width, { reset: null });
  const off = m.const(0, 1);
  const hitA = o.forwarding
    ? registeredMatch(m, 'hit_a', { write: o.writing, writeAddr: o.addr2, readAddr: o.addr })
    : m.pipe(off, 1, 'hit_a');
  // addr2 == addr1 next cycle is addr1 == addr now: compared now, registered.
  const sameNext = registeredMatch(m, 'same_next', { writeAddr: o.addr1, readAddr: o.addr });
  const hitBNext = o.forwarding ? o.writing.and(sameNext) : off;
  const hitB = m.pipe(hitBNext, 1, 'hit_b');
  const rdq = m.pipe(m.mux(hitA, fwd, o.rd), 1, 'rdq', { reset: null });
  const word = m.mux(hitB, fwd, rdq);
  return { fwd, rdq, word, hitBNext };
}

export interface TestAndSetColumnOptions {
  width: number;
  depth: number;
  /** Word address and bit index of the op in R (null for one-bit words). */
  addr: Sig;
  bit: Sig | null;
  /** An op is in R (the read enable). */
  read: Sig;
  /** The op now in R+2 sets its bit this cycle (a register). */
  writing: Sig;
  /** The write port's enable this cycle, insert or clear (a register). */
  writeEn: Sig;
  /** `issue`: a clear writes next cycle; `write`: a clear writes this cycle, at `addr`. */
  clear: { issue: Sig; write: Sig; addr: Sig };
  forwarding: boolean;
  /** Register name of the tested bit. */
  matchName: string;
  /**
   * The bit index registered first and decoded into `onehot` a stage later (`bit` then `onehot`,
   * 3 + 8 registers for 8-bit words where the default registers the one-hot twice): fewer
   * registers for the same timing of the one-hot (default false; true in a lane design's APBF
   * shard).
   */
  lateOnehot?: boolean;
}

/** One column of a Bloom filter bank: test a bit, set it on insert, zero words on clear. */
export function testAndSetColumn(m: ModuleBuilder, o: TestAndSetColumnOptions): { match: Sig } {
  const mem = m.memory('ram', { width: o.width, depth: o.depth, readDuringWrite: 'undefined' });
  const rd = mem.read(o.addr, o.read);
  const addr1 = m.pipe(o.addr, 1, 'addr', { reset: null });
  const addr2 = m.pipe(addr1, 1, 'addr5', { reset: null });
  const decode = (bit: Sig | null): Sig => (bit === null ? m.const(1, 1) : m.const(1, o.width).shl(bit));
  const onehot =
    o.lateOnehot && o.bit !== null
      ? m.pipe(decode(m.pipe(o.bit, 1, 'bit', { reset: null })), 1, 'onehot', { reset: null })
      : m.pipe(decode(o.bit), 2, 'onehot', { reset: null });
  const f = forwardedRead(m, { rd, addr: o.addr, addr1, addr2, writing: o.writing, forwarding: o.forwarding });
  const match = m.pipe(f.word.and(onehot).any(), 1, o.matchName, { reset: null });
  // A clear zeroes `fwd_data` the cycle before it writes, then writes `fwd_data` with no bit
  // set: the write data needs no zero mux. (No insert writes a word being cleared.)
  const keep = m.pipe(o.clear.issue.not(), 1, 'keep');
  const takeFwd = m.pipe(o.clear.issue.or(f.hitBNext), 1, 'take_fwd');
  const newWord = m.mux(takeFwd, f.fwd, f.rdq).or(m.mux(keep, onehot, 0));
  f.fwd.next(m.mux(o.clear.issue, 0, newWord));
  mem.write(m.mux(o.clear.write, o.clear.addr, addr2), newWord, o.writeEn);
  return { match };
}
