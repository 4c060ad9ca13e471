/** Build-time design errors: each names the signal and the DSL source line that caused it. */
import type { SrcLoc } from './types.js';

export function formatLoc(loc: SrcLoc): string {
  return `${loc.file}:${loc.line}:${loc.col}`;
}

export class DesignError extends Error {
  constructor(
    readonly design: string,
    message: string,
    readonly loc: SrcLoc | null,
  ) {
    super(`${loc ? formatLoc(loc) + ': ' : ''}design '${design}': ${message}`);
    this.name = 'DesignError';
  }
}
