#!/usr/bin/env node
// `npm run bench:tests`: the time of `npm test` on a fresh clone, against 0.1's own `npm test`
// measured side by side. This machine's speed moves from one hour to the next, so a
// time measured alone says little: the runs take turns, round after round, and each round's ratio
// is against the baseline run beside it. Not part of `npm run bench` (it clones and
// installs twice and runs the suite 3 × rounds times).
//
// Usage: node scripts/measure-test-time.mjs [--rounds 5] [--baseline <commit>|none]
//   Clones the committed HEAD of this repository (not the working tree) and the baseline
//   (default 5a76491, version 0.1) into a temp folder, runs `npm install` in each as a new user
//   would, then in every round: the baseline's `npm test`, today's, and today's without the three
//   Chromium files (DASVC_TEST_EXCLUDE, read by vitest.config.ts). Before each run the test
//   type-check's build info and vite's cache go, as on a fresh clone. Exits 1 when a run fails
//   or the median is not at least one third below the baseline's (the goal).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { parseArgs, stripVTControlCharacters } from 'node:util';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    baseline: { type: 'string', default: '5a76491' },
  },
});
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error('--rounds takes a whole number above 0');
const baseline = values.baseline === 'none' ? undefined : values.baseline;
const root = fileURLToPath(new URL('..', import.meta.url));
const BROWSER_FILES = [
  'test/e2e/browser-login.test.ts',
  'test/e2e/check-browser.test.ts',
  'test/e2e/dashboard.test.ts',
];

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** Runs a command to its end, quietly; throws with its output when it fails. */
function must(command, args, cwd) {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: 'pipe' });
  if (r.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed:\n${r.stdout}${r.stderr}`);
}

/** One `npm test`: wall time (ms), exit code and the passed count vitest reports. */
function npmTest(cwd, env) {
  rmSync(join(cwd, 'node_modules/.vite'), { recursive: true, force: true });
  for (const info of ['tests.tsbuildinfo', 'tests-native.tsbuildinfo'])
    rmSync(join(cwd, 'dist', info), { force: true });
  const started = performance.now();
  const child = spawn('npm', ['test'], {
    cwd,
    // Each suite's temp folders land in the work folder, removed with it: the baseline's tests
    // leave theirs behind.
    env: { ...process.env, ...env, TMPDIR: scratch },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) =>
    child.on('close', (code) =>
      resolve({
        ms: performance.now() - started,
        code,
        passed: Number(/Tests\s+(\d+) passed/.exec(stripVTControlCharacters(output))?.[1] ?? 0),
        tail: output.slice(-2000),
      }),
    ),
  );
}

const work = mkdtempSync(join(tmpdir(), 'measure-test-time-'));
const scratch = join(work, 'tmp');
mkdirSync(scratch);
const configs = [
  ...(baseline ? [{ name: `baseline ${baseline}`, dir: join(work, 'baseline'), env: {} }] : []),
  { name: 'now, with the browser tests', dir: join(work, 'now'), env: {} },
  {
    name: 'now, without the browser tests',
    dir: join(work, 'now'),
    env: { DASVC_TEST_EXCLUDE: BROWSER_FILES.join(',') },
  },
];
let failed = false;
try {
  console.log(
    `${cpus().length} cores, load average ${loadavg()[0].toFixed(1)}; ${new Date().toISOString()}; ` +
      `cloning and installing into ${work}`,
  );
  must('git', ['clone', '-q', root, join(work, 'now')]);
  must('npm', ['install', '--no-audit', '--no-fund'], join(work, 'now'));
  if (baseline) {
    must('git', ['clone', '-q', root, join(work, 'baseline')]);
    must('git', ['checkout', '-q', baseline], join(work, 'baseline'));
    must('npm', ['install', '--no-audit', '--no-fund'], join(work, 'baseline'));
  }
  const runs = configs.map(() => []);
  for (let round = 1; round <= rounds; round++) {
    for (const [i, config] of configs.entries()) {
      const run = await npmTest(config.dir, config.env);
      runs[i].push(run);
      console.log(
        `round ${round}: ${config.name}: ${seconds(run.ms)}, ${run.passed} passed, exit ${run.code}`,
      );
      if (run.code !== 0) {
        failed = true;
        console.log(run.tail);
      }
    }
  }
  console.log(`\nnpm test on a fresh clone, ${rounds} rounds taking turns (median, spread):`);
  const base = baseline ? runs[0].map((r) => r.ms) : undefined;
  for (const [i, config] of configs.entries()) {
    const ms = runs[i].map((r) => r.ms);
    let line = `${config.name}: ${seconds(median(ms))} (${seconds(Math.min(...ms))}–${seconds(Math.max(...ms))}), ${runs[i][0].passed} tests`;
    if (base && i > 0) {
      const ratios = ms.map((m, round) => m / base[round]);
      const ratio = median(ms) / median(base);
      const met = ratio <= 2 / 3;
      failed ||= !met;
      line +=
        `; ${Math.round((1 - ratio) * 100)} % below the baseline (goal: at least 33 %: ` +
        `${met ? 'met' : 'MISSED'}); per round ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)} of the run beside it`;
    }
    console.log(line);
  }
  console.log(`load average ${loadavg()[0].toFixed(1)} at the end`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
