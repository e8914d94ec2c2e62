#!/usr/bin/env node
// What --state-file costs and keeps, measured in this run on 127.0.0.1: token minting
// (POST /_mock/tokens) with --state-file against the same mock without it (goal ≥ 0.7×), RSS
// after the same number of mints (goal: no higher with the state file), and tokens kept after
// kill -9 at 0 ms (goal: all).
// Servers are separate processes; this process is the load generator. Bounded in count and time.
/* global fetch */
// Usage: node scripts/bench-state-file.mjs [--seconds 2] [--rounds 5] [--connections 16] [--tokens 50000] [--kills 2000]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '16' },
    tokens: { type: 'string', default: '50000' },
    kills: { type: 'string', default: '2000' },
  },
  allowPositionals: true,
  // bench.mjs hands every part the same flags: the other parts' are not ours to refuse.
  strict: false,
});
const connections = Number(args.connections);
const dir = mkdtempSync(join(tmpdir(), 'dasvc-bench-state-'));
const MINT = { path: '/_mock/tokens', body: '{"user":"alice","scope":"crm wiki"}' };

function startMock(extra = []) {
  const child = spawn(
    process.execPath,
    [`${root}bin/dasvc.js`, 'mock', '--port', '0', '--quiet', ...extra],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // Drained, kept short: shown only if the mock fails to start.
  let errors = '';
  child.stderr.on('data', (chunk) => (errors = (errors + chunk).slice(-2000)));
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      const url = /^listening on (\S+)\n/.exec(buffer)?.[1];
      if (url) {
        child.stdout.removeAllListeners('data');
        child.stdout.resume();
        resolve({ child, url });
      }
    });
    child.once('exit', (code) => reject(new Error(`dasvc mock exited with ${code}: ${errors}`)));
  });
}

function stop(child, signal = 'SIGTERM') {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill(signal);
  });
}

/** `connections` keep-alive loops minting until `seconds` pass or `count` mints are done. */
async function mintLoad(url, { seconds = Infinity, count = Infinity, keep = false }) {
  const pool = new Pool(url, { connections, pipelining: 1 });
  const deadline = Date.now() + seconds * 1000;
  const tokens = [];
  let ok = 0;
  let issued = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < deadline && issued < count) {
        issued++;
        const res = await pool.request({
          path: MINT.path,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: MINT.body,
        });
        const text = await res.body.text();
        if (res.statusCode !== 200) throw new Error(`mint answered ${res.statusCode}`);
        ok++;
        if (keep) tokens.push(JSON.parse(text).access_token);
      }
    }),
  );
  const elapsed = (Date.now() - started) / 1000;
  await pool.close();
  return { rate: ok / elapsed, tokens };
}

const rssMb = (pid) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function works(url, token) {
  const res = await fetch(`${url}/webservice/json/crm`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: '{"jsonrpc":"2.0","method":"contacts.list","id":1}',
  });
  await res.arrayBuffer();
  return res.status === 200;
}

async function main() {
  // Rate: both mocks side by side, rounds alternating, median of the rounds after a warm-up.
  const bare = await startMock();
  const journaled = await startMock(['--state-file', join(dir, 'rate.json')]);
  await mintLoad(bare.url, { seconds: 1 });
  await mintLoad(journaled.url, { seconds: 1 });
  const rates = { bare: [], journaled: [] };
  for (let round = 0; round < Number(args.rounds); round++) {
    rates.bare.push((await mintLoad(bare.url, { seconds: Number(args.seconds) })).rate);
    rates.journaled.push((await mintLoad(journaled.url, { seconds: Number(args.seconds) })).rate);
  }
  await stop(bare.child);
  await stop(journaled.child);
  const without = median(rates.bare);
  const withFile = median(rates.journaled);
  console.log(
    `mint rate: ${withFile.toFixed(0)}/s with --state-file vs ${without.toFixed(0)}/s without = ${(withFile / without).toFixed(2)}× (goal ≥ 0.70×)`,
  );

  // Memory: RSS of fresh mocks after the same number of mints; rounds alternate, median of each.
  const count = Number(args.tokens);
  const rssRounds = { without: [], with: [] };
  for (let round = 0; round < Math.min(3, Number(args.rounds)); round++) {
    for (const [name, extra] of [
      ['without', []],
      ['with', ['--state-file', join(dir, `memory-${round}.json`)]],
    ]) {
      const mock = await startMock(extra);
      await mintLoad(mock.url, { count });
      rssRounds[name].push(rssMb(mock.child.pid));
      await stop(mock.child);
    }
  }
  const rss = { without: median(rssRounds.without), with: median(rssRounds.with) };
  console.log(
    `RSS after ${count} mints: ${rss.with.toFixed(0)} MB with --state-file vs ${rss.without.toFixed(0)} MB without (goal: no higher)`,
  );

  // kill -9 at 0 ms after the last answer, then count the answered tokens that still work.
  const file = join(dir, 'kill.json');
  const first = await startMock(['--state-file', file]);
  const { tokens } = await mintLoad(first.url, { count: Number(args.kills), keep: true });
  first.child.kill('SIGKILL');
  await stop(first.child);
  const second = await startMock(['--state-file', file]);
  let lost = 0;
  for (let i = 0; i < tokens.length; i += connections) {
    const batch = await Promise.all(
      tokens.slice(i, i + connections).map((t) => works(second.url, t)),
    );
    lost += batch.filter((ok) => !ok).length;
  }
  await stop(second.child);
  console.log(`kill -9 at 0 ms after ${tokens.length} mints: ${lost} lost (goal 0)`);
  // A missed goal fails the part (bench.mjs lists it); RSS within 5 % is the noise of two equal runs.
  if (withFile / without < 0.7 || rss.with > rss.without * 1.05 || lost > 0) process.exitCode = 1;
}

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => rmSync(dir, { recursive: true, force: true }));
