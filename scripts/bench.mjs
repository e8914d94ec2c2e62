#!/usr/bin/env node
// `npm run bench`: every figure the issues ask for, each as a ratio measured in the same run.
// Figures never live in tests (timed assertions flake on shared machines); they live here.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const parts = ['bench-mock.mjs', 'bench-cli.mjs', 'bench-proxy.mjs', 'bench-mock-log.mjs'].filter(
  (f) => existsSync(here + f),
);
let failed = 0;
for (const part of parts) {
  console.log(`\n== ${part.replace(/\.mjs$/, '')} ==`);
  const r = spawnSync(process.execPath, [here + part, ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
