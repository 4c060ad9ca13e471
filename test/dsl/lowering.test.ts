import { describe, expect, it } from 'vitest';
import { ModuleBuilder } from '../../src/dsl/module.js';
import { designToString } from '../../src/ir/print.js';
import { counter } from '../../src/examples/index.js';

describe('lowering to the IR', () => {
  it('the counter lowers to the expected netlist', () => {
    expect(designToString(counter())).toMatchInlineSnapshot(`
      "(design counter
        (net %0:en 1)
        (net %1:count_q 8)
        (net %2:const_0 8)
        (net %3:add_0 8)
        (net %4:mux_0 8)
        (net %5:const_1 8)
        (net %6:eq_0 1)
        (net %7:and_0 1)
        (net %8:rst 1)
        (input en %0)
        (input rst %8)
        (output count %1)
        (output wrap %7)
        (const %2:const_0 8'h1)
        (arith.add %3:add_0 %1:count_q %2:const_0)
        (mux %4:mux_0 %0:en %3:add_0 %1:count_q)
        (const %5:const_1 8'hff)
        (compare.eq %6:eq_0 %1:count_q %5:const_1)
        (bitwise.and %7:and_0 %6:eq_0 %0:en)
        (reg %1:count_q d=%4:mux_0 en=- rst=%8:rst reset=0))"
    `);
  });

  it('wires take the name of what drives them, and dead logic is removed', () => {
    const m = new ModuleBuilder('t');
    const a = m.input('a', 4);
    const w = m.wire('total', 4);
    w.assign(a.add(a));
    a.xor(a); // unused
    m.output('y', w);
    const text = designToString(m.build());
    expect(text).toContain('(arith.add %1:total %0:a %0:a)');
    expect(text).not.toContain('xor');
  });

  it('scopes prefix names (flattened hierarchy)', () => {
    const m = new ModuleBuilder('t');
    const a = m.input('a', 4);
    const y = m.scope('unit0', () => m.pipe(a, 2, 'd'));
    m.output('y', y);
    const text = designToString(m.build());
    expect(text).toContain('unit0_d_p1');
    expect(text).toContain('unit0_d_p2');
  });
});
