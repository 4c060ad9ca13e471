#!/usr/bin/env node
// FuseSoC generator entry point (see src/ip/fusesocGenerator.ts): node bin/bloomforge-fusesoc.mjs INPUT.yml
import { register } from 'tsx/esm/api';

register();
const { fusesocMain } = await import('../src/ip/fusesocGenerator.ts');
process.exit(fusesocMain(process.argv.slice(2)));
