#!/usr/bin/env node
// FuseSoC generator entry point (see src/cli/fusesoc.ts): node bin/bloomforge-fusesoc.mjs INPUT.yml
import { register } from 'tsx/esm/api';

register();
const { fusesocMain } = await import('../src/cli/fusesoc.ts');
process.exit(fusesocMain(process.argv.slice(2)));
