/**
 * Clearing block RAM without stalling: the reset/clear sweep and the background clear channels.
 */

/**
 * Cycles between the event that starts a clear (a shift, a clear op, reset) and its first write:
 * in-flight reads of the bank finish first. Part of every zero-stall bound.
 */
export const CLEAR_DELAY = 4;
