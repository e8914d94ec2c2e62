#!/usr/bin/env node
// `npm test` after the build: the type-check of the tests and vitest, side by side. vitest needs
// the built dist/ and the CLI bundles (npm test makes them first), not the tests' type-check, and
// the suite leaves part of the two cores idle while it waits on child processes, D-Bus and
// timers: the check (~4 s of one core, alone) fits in that. Its report comes after vitest's, so
// that vitest's own last lines stay where `.ci/run` and a reader look; either failing fails the
// run. Arguments go to vitest (`npm test -- --reporter=json`).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
// vitest exports no path to its binary; its package.json names it.
const vitestPackage = require.resolve('vitest/package.json');
const vitestBin = join(dirname(vitestPackage), require(vitestPackage).bin.vitest);

/** Runs a Node script to its end; `capture` keeps its output for later instead of passing it on. */
function run(script, args, capture) {
  const child = spawn(process.execPath, [script, ...args], {
    stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
  });
  let output = '';
  if (capture) {
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
  }
  return new Promise((resolve) => {
    child.on('error', (error) => resolve({ code: 1, output: `${error.message}\n` }));
    // A signal (Ctrl-C reaches the whole process group) is a failure.
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

const [types, tests] = await Promise.all([
  run(require.resolve('typescript/bin/tsc'), ['-b', 'tsconfig.json'], true),
  run(vitestBin, ['run', ...process.argv.slice(2)], false),
]);
if (types.code !== 0) {
  process.stderr.write(`\nThe type-check of the tests (tsc -b) failed:\n${types.output}`);
}
process.exitCode = types.code !== 0 ? types.code : tests.code;
