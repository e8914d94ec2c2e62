#!/usr/bin/env node
// `npm test` after the build: the type-check of src/ and of the tests, and vitest, side by side.
// vitest needs the built dist/ (npm test makes it first), not the type-check, and the suite keeps
// both cores busy: the check runs with TypeScript 7, the native compiler (a fraction of 5.9's
// CPU). npm test's build writes the declarations without checking src/ (`build.mjs --no-check`):
// src/ is checked here, by 7, while vitest runs. The package itself is built with 5.9
// (`typescript`, whose JS API typescript-eslint needs), `npm run build` and `npm run typecheck`
// check with 5.9, and the packed install checks what a consumer's 5.9 sees; 7 comes as the alias
// `typescript-native`, run here by its path, since both packages name their binary `tsc` and npm
// links either one to node_modules/.bin/tsc. `-p`, not `-b`: build mode would rebuild the
// referenced project (dist/) with 7 whenever its build info was written by 5.9; the tests' check
// reads dist/'s declarations as they are, and each check keeps its own build info. Its report
// comes after vitest's, so that vitest's own last lines stay where `.ci/run` and a reader look;
// any failing fails the run. Arguments go to vitest (`npm test -- --reporter=json`).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
/** A package's binary: neither vitest nor TypeScript 7 exports a path to it; package.json names it. */
function binOf(name, bin) {
  const manifest = require.resolve(`${name}/package.json`);
  const bins = require(manifest).bin;
  return join(dirname(manifest), typeof bins === 'string' ? bins : bins[bin]);
}
const vitestBin = binOf('vitest', 'vitest');
const nativeTsc = binOf('typescript-native', 'tsc');

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

/** The type-checks: what each covers, its project, and the build info it keeps. */
const CHECKS = [
  { what: 'src/', project: 'tsconfig.build.json', info: 'src-native', noEmit: true },
  { what: 'the tests', project: 'tsconfig.json', info: 'tests-native', noEmit: false },
];

const [tests, ...types] = await Promise.all([
  run(vitestBin, ['run', ...process.argv.slice(2)], false),
  ...CHECKS.map(({ project, info, noEmit }) =>
    run(
      nativeTsc,
      [
        '-p',
        project,
        ...(noEmit ? ['--noEmit'] : []),
        '--tsBuildInfoFile',
        `dist/${info}.tsbuildinfo`,
      ],
      true,
    ),
  ),
]);
const failed = types.find((t) => t.code !== 0)?.code ?? tests.code;
for (const [i, { what, project }] of CHECKS.entries()) {
  if (types[i].code === 0) continue;
  process.stderr.write(
    `\nThe type-check of ${what} (TypeScript 7, tsc -p ${project}) failed:\n${types[i].output}`,
  );
}
process.exitCode = failed;
