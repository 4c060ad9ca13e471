/**
 * The pieces of the stage library other modules imported from here before it was split (kept so
 * their imports stay valid): see primitives.ts and responseQueue.ts.
 */
export { bitsFor, muxTree, thermometer } from './primitives.js';
export { responseQueue } from './responseQueue.js';
