/**
 * The stage library the filter pipelines are composed from (SpinalHDL-style: each stage is a
 * function of the ModuleBuilder and an options object that returns the signals it makes; a
 * stage whose logic needs signals made later returns methods to close it).
 *
 *   input.ts          skidInput (two-entry skid, decoded op flags), registeredInput, decodeOp
 *   counters.ts       counterBank, saturatingStep (counters read-modify-written with forwarding)
 *   clear.ts          CLEAR_DELAY, clearSweep (reset/clear sweep), clearChannels (background clear)
 *   hash.ts           xorTree, chunkedH3 (XOR tree cut by a register), wideH3 (several units)
 *   rmw.ts            registeredMatch, forwardedRead, testAndSetColumn (block RAM RMW with forwarding)
 *   windows.ts        consecutiveMatch (k consecutive segments in a valid window)
 *   ages.ts           compareAges, oldestAge (λ, c and expired counts of k ages)
 *   bitColumn.ts      writeBitColumn (a column of 1-bit cells, set and reset per op)
 *   cellWord.ts       cellWordBank (words of saturating d-bit cells: decrement mask + set, forwarded)
 *   cellBanks.ts      cellWordBanks (k hashed cellWordBanks and their shared write-side registers)
 *   decrementLanes.ts decrementLanes, decrementMaskWord (xorshift32 lanes, word-local decrement masks)
 *   laneRmw.ts        laneRmw (per-lane read-modify-write with forwarding, bitwise levels)
 *   pipeline.ts       pipeStage (a record of fields through one register stage), omit
 *   responseQueue.ts  responseQueue, occupancy (in-flight count, no overflow)
 *   primitives.ts     bitsFor, muxTree, thermometer
 *   arbiter.ts        rotatingPriority (a rotating priority order, a register per pair)
 *   oneHot.ts         anyOf, oneHotSelect (the lanes' router: selects by one-hot flags)
 *   bitCount.ts       countOnes, truthTable (counts and functions of a few bits as LUT-sized gates)
 *   slotQueue.ts      slotQueue, inFlightCount (response queue with meta reserved per slot at issue)
 *
 * Call order matters: cells and nets are numbered in creation order and the Verilog names and
 * declares them in that order, so the same stages called in another order give a different (if
 * equivalent) netlist.
 */
export * from './ages.js';
export * from './arbiter.js';
export * from './bitCount.js';
export * from './bitColumn.js';
export * from './cellBanks.js';
export * from './cellWord.js';
export * from './clear.js';
export * from './counters.js';
export * from './decrementLanes.js';
export * from './hash.js';
export * from './input.js';
export * from './laneRmw.js';
export * from './oneHot.js';
export * from './pipeline.js';
export * from './primitives.js';
export * from './responseQueue.js';
export * from './rmw.js';
export * from './slotQueue.js';
export * from './windows.js';
