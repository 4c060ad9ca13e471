/** The A² family's types: the parameters the model needs and the derived config. */
import type { Target } from '../../device/index.js';
import type { FilterConfig } from '../types.js';

export interface A2Params {
  /** Hashes per half (one block RAM bank per hash per half: a partitioned filter). */
  k: number;
  /** κ: real inserts into the active half before the halves swap. */
  kappa: number;
  /** Bits per bank (m/(2k)); a power of two. */
  bankBits: number;
  keyBits: number;
  seed: number;
}

export interface A2Derived extends A2Params, FilterConfig {
  name: string;
  filter: 'a2';
  /** Block RAM word width. */
  wordBits: number;
  /** Words per bank (bankBits / wordBits). */
  depth: number;
  tagBits: number;
  /** m: bits of the two halves (2·k·bankBits); the hardware has a third set of k banks. */
  bits: number;
  /** Keys guaranteed to be found: the last κ inserts. */
  window: number;
  /** How far beyond the window (in distinct inserts) a key may still be found: κ − 1. */
  slack: number;
  target: Target;
  /** Set when the planner chose the sizes from `window` and `fp`. */
  planned?: { window: number; fp: number };
}
