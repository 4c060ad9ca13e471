#!/usr/bin/env node
// Entry point: loads the TypeScript CLI through tsx's ESM loader (no separate build step).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
