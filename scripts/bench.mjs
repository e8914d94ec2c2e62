#!/usr/bin/env node
// `npm run bench`: every figure the project holds itself to, each as a ratio against its baseline measured
// side by side in the same run. Figures never live in tests (timed assertions flake on shared
// machines); they live here. Runs every scripts/bench-*.mjs in name order, each in its own process
// with no arguments (each has its own defaults): a new bench plugs in by being there.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { cpus, loadavg, totalmem, type } from 'node:os';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const parts = readdirSync(here)
  .filter((f) => /^bench-.+\.mjs$/.test(f))
  .sort();
const cpu = cpus();
console.log(
  `machine: ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GB, ` +
    `${type()}; node ${process.version}; load average ${loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')} at start; ${new Date().toISOString()}`,
);
const failed = [];
for (const part of parts) {
  console.log(`\n== ${part.replace(/\.mjs$/, '')} ==`);
  const r = spawnSync(process.execPath, [here + part], { stdio: 'inherit' });
  if (r.status !== 0) failed.push(part);
}
console.log(
  `\n${failed.length === 0 ? 'every goal met' : `goals missed (or a bench failed) in: ${failed.join(', ')}`}`,
);
process.exitCode = failed.length ? 1 : 0;
