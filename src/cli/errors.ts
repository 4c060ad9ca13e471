/** CLI error classes with the exit codes the README documents. */
export class UsageError extends Error {
  readonly exitCode = 2;
}

/** Exit codes: 0 ok, 1 a check failed (mismatches), 2 usage/config/design error, 3 missing tool. */
export const EXIT = { ok: 0, checkFailed: 1, usage: 2, tool: 3 } as const;
