import { describe, expect, it } from 'vitest';
import { ModuleBuilder } from '../../src/dsl/module.js';
import { DesignError } from '../../src/ir/errors.js';

/** The line of the caller, to check that errors point at the DSL line that caused them. */
function here(): number {
  return Number(/errors\.test\.ts:(\d+)/.exec(new Error().stack!.split('\n')[2]!)![1]);
}

function expectDesignError(fn: () => unknown, message: RegExp, line?: number): void {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(DesignError);
  const msg = (err as DesignError).message;
  expect(msg).toMatch(message);
  if (line !== undefined) expect(msg).toContain(`errors.test.ts:${line}:`);
}

describe('DSL build-time checks', () => {
  it('width mismatch names both signals and the line', () => {
    const m = new ModuleBuilder('t');
    const a = m.input('alpha', 8);
    const b = m.input('beta', 4);
    expectDesignError(() => a.add(b), /width mismatch.*'alpha'.*8 bits.*'beta' is 4 bits/, here());
  });

  it('constants that do not fit are rejected', () => {
    const m = new ModuleBuilder('t');
    const a = m.input('a', 4);
    expectDesignError(() => a.add(16), /constant 16 does not fit in 4 bits/, here());
  });

  it('a wire assigned twice is a multiple-driver error naming both lines', () => {
    const m = new ModuleBuilder('t');
    const w = m.wire('w', 1);
    const first = here() + 1;
    w.assign(m.input('a', 1));
    expectDesignError(() => w.assign(1), new RegExp(`multiple drivers: wire 'w'.*errors\\.test\\.ts:${first}`), here());
  });

  it('a register given two next values is a multiple-driver error', () => {
    const m = new ModuleBuilder('t');
    const r = m.reg('r', 2);
    r.next(1);
    expectDesignError(() => r.next(2), /multiple drivers: register 'r'/, here());
  });

  it('an undriven wire is reported with the line that declared it', () => {
    const m = new ModuleBuilder('t');
    const line = here() + 1;
    const w = m.wire('floating', 3);
    m.output('y', w);
    expectDesignError(() => m.build(), /undriven: wire 'floating'/, line);
  });

  it('a register without next value is undriven', () => {
    const m = new ModuleBuilder('t');
    const line = here() + 1;
    const r = m.reg('stuck', 3);
    m.output('y', r);
    expectDesignError(() => m.build(), /undriven: register 'stuck'/, line);
  });

  it('a combinational loop through cells is found and named', () => {
    const m = new ModuleBuilder('t');
    const w = m.wire('loop', 4);
    const x = w.add(1);
    w.assign(x);
    m.output('y', w);
    expectDesignError(() => m.build(), /combinational loop: .*'loop'/);
  });

  it('a loop made only of wires is found', () => {
    const m = new ModuleBuilder('t');
    const a = m.wire('a', 1);
    const b = m.wire('b', 1);
    a.assign(b);
    b.assign(a);
    m.output('y', a);
    expectDesignError(() => m.build(), /combinational loop through wires/);
  });

  it('a loop broken by a register is fine', () => {
    const m = new ModuleBuilder('t');
    const r = m.reg('r', 4);
    r.next(r.add(1));
    m.output('y', r);
    expect(() => m.build()).not.toThrow();
  });

  describe('memory misuse', () => {
    const mk = () => {
      const m = new ModuleBuilder('t');
      return { m, addr: m.input('addr', 4), data: m.input('data', 8) };
    };
    it('depth 0, non-power-of-two depth and width 0 are rejected', () => {
      const { m } = mk();
      expectDesignError(() => m.memory('a', { width: 8, depth: 0 }), /memory 'a': depth 0/, here());
      expectDesignError(() => m.memory('b', { width: 8, depth: 12 }), /depth 12 must be a power of two/);
      expectDesignError(() => m.memory('c', { width: 0, depth: 16 }), /memory 'c': width 0/);
    });
    it('a second read or write port is refused', () => {
      const { m, addr, data } = mk();
      const mem = m.memory('mem', { width: 8, depth: 16 });
      mem.read(addr);
      mem.write(addr, data);
      expectDesignError(() => mem.read(addr), /one read port/, here());
      expectDesignError(() => mem.write(addr, data), /one write port/, here());
    });
    it('wrong address, data and mask widths are named', () => {
      const { m, data } = mk();
      const mem = m.memory('mem', { width: 8, depth: 16, mask: true });
      const wide = m.input('wide', 5);
      expectDesignError(() => mem.read(wide), /address of memory 'mem' read must be 4 bits/);
      expectDesignError(() => mem.write(0, data, 1, m.input('m4', 4)), /write mask of memory 'mem' must be 8 bits/);
      expectDesignError(() => mem.write(0, data, 1), /needs a mask/);
    });
    it('a memory that is never read or written is an error at build', () => {
      const { m, addr, data } = mk();
      const mem = m.memory('lonely', { width: 8, depth: 16 });
      mem.write(addr, data);
      m.output('y', data);
      expectDesignError(() => m.build(), /memory 'lonely' is never read/);
    });
  });

  it('names must be legal, unique and not Verilog keywords', () => {
    const m = new ModuleBuilder('t');
    m.input('a', 1);
    expectDesignError(() => m.input('a', 1), /'a' is already used/);
    expectDesignError(() => m.input('wire', 1), /Verilog keyword/);
    expectDesignError(() => m.input('9x', 1), /not a legal signal name/);
    expectDesignError(() => m.input('w', 0), /width 0/);
  });
});
