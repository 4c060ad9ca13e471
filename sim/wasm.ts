/**
 * WebAssembly back-end of the compiled simulator's clock-cycle loop (`run`).
 *
 * sim/codegen.ts turns a design into JavaScript; V8 compiles that with TurboFan, which keeps
 * every JavaScript value live at a possible deoptimisation point recoverable and turns each
 * `c ? a : b` into a branch. On the BTBF preset about half of the optimised loop's x86
 * instructions were moves to and from stack slots (src/bench/scripts/profile.sh). The same cycle as a
 * WebAssembly function has no deoptimisation points, a select is a conditional move, memory
 * accesses need no bounds checks (V8 guards a 32-bit memory with unmapped pages on 64-bit
 * hosts), and every value is an i32.
 *
 * This module emits one function, `run(n, writeOut) -> collisions`, with the same semantics as
 * the JavaScript `run`: cycle c reads its input row from the stimulus staging area, stores the
 * outputs (pre-edge) into the output staging area when `writeOut` is non-zero, then applies the
 * clock edge (memories read then written, registers committed together, synchronous resets).
 * Every combinational net word is an i32 local. The state (register outputs, memory read data)
 * is not: it lives in two copies of V, the current one (read) and the next one (written), which
 * trade places at each clock edge. A state word read more than once in a cycle is loaded into a
 * local where it is first read, one read once is loaded where it is read. Each register's and
 * memory's edge is emitted as soon as the nets it reads are computed (its next value stored into
 * the next V there), so those nets need not stay live to the end of the cycle. Loop-carried
 * locals for the state, as this loop first had, live across the whole loop, and the register
 * allocator kept most of them in stack slots and moved them every cycle (on APBF (4, 3) 1166 of
 * the loop's 2313 x86 instructions were moves to or from the stack, src/bench/scripts/profile.sh); with
 * the state in memory the same design runs about twice as fast, with the early edges and late
 * loads about 1.3-2x faster again (bench:sim, README "Benchmark"). A state word read far apart
 * in the cycle is loaded again where it is next read (RELOAD_DISTANCE).
 * A bank of registers written at decoded indices (`indexedWrites`: each writer with the enable
 * bit of its index and its data, a priority chain where there are several; the lane response
 * queues' one-hot row and column slot registers are not this form) has
 * no per-entry edge: each writer stores its data at its slot, once every read of the bank in the
 * cycle is generated, into both copies of V, so an entry not written keeps its value in both.
 * Only the cells whose values the loop reads are generated (`liveCells`): not the inner muxes of
 * an indexed select, nor a bank's enables and chains.
 * After the loop the state is copied back to V if it ended in the other copy. The word
 * format is sim/codegen.ts's: ceil(W/32) little-endian words, bits above W clear.
 *
 * All arrays the simulator shares with its JavaScript functions (V, the memories, the H3
 * tables, the staging areas) live in one WebAssembly.Memory at the offsets of `WasmPlan`, so
 * `settle`, `peek` and `readMemory` see what `run` wrote.
 */
import { combOrder } from '../src/ir/topo.js';
import type { Design } from '../src/ir/types.js';
import type { Layout } from './codegen.js';
import type { LiftPlan } from './lift.js';
import { runModule } from './wasm/encode.js';
import { loopForms } from './wasm/forms.js';
import { stateLayout, type WasmPlan } from './wasm/layout.js';
import { emitLoop } from './wasm/loop.js';
import { scheduleEdges } from './wasm/schedule.js';
import { CycleWriter } from './wasm/writer.js';

export { indexedSelects, indexedWrites, type IndexedSelect, type IndexedWrite } from './wasm/forms.js';
export { planMemory, type WasmPlan } from './wasm/layout.js';

export interface WasmRunOptions {
  poison: boolean;
  lift: LiftPlan | null;
}

/**
 * The module bytes of `run(n: i32, writeOut: i32) -> i32` (the count of same-address reads
 * during writes on 'undefined' memories in those n cycles), importing the memory as env.mem.
 * Phases: the loop's forms and state layout, the edge schedule, then emission.
 */
export function generateWasm(d: Design, L: Layout, plan: WasmPlan, opts: WasmRunOptions): Uint8Array<ArrayBuffer> {
  const forms = loopForms(d, L, opts.lift);
  const state = stateLayout(d, forms, opts.lift);
  const order = combOrder(d);
  const schedule = scheduleEdges(d, L, order, forms, state, opts.lift);
  const w = new CycleWriter(d, L, plan, state, opts.lift, opts.poison);
  emitLoop(w, order, forms, schedule);
  return runModule(w.f.body(), plan.pages);
}
