/**
 * Transform: give every net a unique, legal Verilog identifier. User names are kept (they are
 * unique already); intermediate results get `<op>_<n>`. Names that clash with Verilog keywords
 * or the implicit `clk` get a trailing underscore.
 */
import type { Design } from '../types.js';

export const KEYWORDS = new Set(
  (
    'always and assign automatic begin buf bufif0 bufif1 case casex casez cell cmos config deassign default ' +
    'defparam design disable edge else end endcase endconfig endfunction endgenerate endmodule endprimitive ' +
    'endspecify endtable endtask event for force forever fork function generate genvar highz0 highz1 if ' +
    'ifnone incdir include initial inout input instance integer join large liblist library localparam ' +
    'macromodule medium module nand negedge nmos nor noshowcancelled not notif0 notif1 or output parameter ' +
    'pmos posedge primitive pull0 pull1 pulldown pullup pulsestyle_ondetect pulsestyle_onevent rcmos real ' +
    'realtime reg release repeat rnmos rpmos rtran rtranif0 rtranif1 scalared showcancelled signed small ' +
    'specify specparam strong0 strong1 supply0 supply1 table task time tran tranif0 tranif1 tri tri0 tri1 ' +
    'triand trior trireg unsigned use uwire vectored wait wand weak0 weak1 while wire wor xnor xor clk ' +
    'bit byte int logic shortint longint var static const'
  ).split(' '),
);

export function nameNets(d: Design): Design {
  const taken = new Set<string>([...d.inputs, ...d.outputs].map((p) => p.name));
  if (d.clock) taken.add(d.clock);
  for (const c of d.cells) if (c.kind === 'memory') taken.add(c.name);
  const portNets = new Set(d.inputs.map((p) => p.net));
  const regNets = new Set(d.cells.flatMap((c) => (c.kind === 'reg' ? [c.out] : [])));
  const counters = new Map<string, number>();
  const nets = d.nets.map((n) => {
    if (portNets.has(n.id)) return n;
    let base = n.name.replace(/[^A-Za-z0-9_]/g, '_');
    if (!/^[A-Za-z_]/.test(base)) base = `n_${base}`;
    let name = base;
    if (n.named && (taken.has(name) || KEYWORDS.has(name))) {
      // A user name that clashes with a port (e.g. register 'count' driving output 'count').
      base = `${base}_${regNets.has(n.id) ? 'q' : 'w'}`;
      name = base;
    }
    if (!n.named || taken.has(name)) {
      do {
        const k = counters.get(base) ?? 0;
        counters.set(base, k + 1);
        name = `${base}_${k}`;
      } while (taken.has(name));
    }
    taken.add(name);
    return { ...n, name };
  });
  return { ...d, nets };
}
