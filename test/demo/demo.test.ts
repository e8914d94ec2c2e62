import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runDemo } from '../../src/demo/run-demo.js';
import { hintFor } from '../../src/cli/hints/hint-for.js';
import { startMockServer } from '../../src/mock/index.js';
import { freshConfigDir, ROOT, runCli, runCliProcess } from '../helpers/cli.js';
import { plain } from '../../src/util/styles.js';

// Every token, code, verifier and state the mock or the CLI makes is 43 base64url characters;
// the only such string the demo may show is the PKCE challenge, which is public by design.
function secretLooking(output: string): string[] {
  return [...output.matchAll(/(\S*?)([A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])/g)]
    .filter((m) => !m[1]!.endsWith('code_challenge='))
    .map((m) => m[2]!);
}

describe('dasvc demo (npm start)', () => {
  const configDir = freshConfigDir();

  afterAll(() => {
    // It leaves no config behind: the demo keeps its tokens in memory.
    expect(existsSync(configDir) ? readdirSync(configDir) : []).toEqual([]);
  });

  it('narrates the whole flow against an embedded mock and exits 0', async () => {
    const run = await runCli(['demo'], configDir);
    expect(run.code, run.stderr).toBe(0);
    const steps = [...run.stdout.matchAll(/^(\d)\. (.*)$/gm)].map((m) => m[2]);
    expect(steps).toEqual([
      'Start the mock service',
      'Authorization request: alice approves at once',
      'Token request: the code is exchanged',
      'API request: contacts.list on crm',
      'Refresh token request: a new pair before the old one expires',
      'Revoke token request: the session ends early',
    ]);
    expect(run.stdout).toMatch(/← 302 Location: http:\/\/127\.0\.0\.1:\d+\/callback\?state=/);
    expect(run.stdout).toContain('"expires_in":"3600"');
    expect(run.stdout).toContain('Ada Lovelace, Grace Hopper');
    expect(run.stdout).toContain('{"result":"Token revoked"}');
    expect(run.stdout.match(/← 401 /g)).toHaveLength(2);
    expect(run.stdout).toMatch(/Done in \d+\.\d s/);
    expect(run.stdout).not.toContain('demo-secret');
    expect(secretLooking(run.stdout + run.stderr)).toEqual([]);
  });

  it("README's sample is what the demo prints, but for ports and timing", async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## What `npm start` shows'));
    const sample = /```text\n([\s\S]*?)```/.exec(section)![1]!;
    // Ports are picked afresh on every run, and so is the time it took.
    const same = (line: string) =>
      line
        .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT')
        .replace(/Done in [\d.]+ s/, 'Done in T s');
    const run = await runCli(['demo'], configDir);
    expect(run.code, run.stderr).toBe(0);
    const printed = new Set(run.stdout.split('\n').map(same));
    const shown = sample.split('\n').filter((line) => line.trim() !== '' && line.trim() !== '…');
    expect(shown.length).toBeGreaterThan(5);
    expect(shown.map(same).filter((line) => !printed.has(line))).toEqual([]);
  });

  it('gives the same steps as JSON with --json', async () => {
    const run = await runCli(['--json', 'demo'], configDir);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as {
      baseUrl: string;
      steps: { title: string; exchanges: { method: string; url: string; status: number }[] }[];
    };
    expect(report.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(report.steps).toHaveLength(6);
    const statuses = report.steps.flatMap((s) => s.exchanges.map((x) => x.status));
    // The authorization request answered by the redirect itself (no browser, no loopback page).
    expect(statuses).toEqual([302, 200, 200, 200, 401, 200, 401]);
    expect(secretLooking(run.stdout)).toEqual([]);
  });

  it('--verbose adds the HTTP trace on stderr, secrets masked', async () => {
    const run = await runCli(['--verbose', 'demo'], freshConfigDir());
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /^> POST http:\/\/127\.0\.0\.1:\d+\/webservice\/authorize\?\S*client_secret=\[redacted\]/m,
    );
    expect(run.stderr).toMatch(/^< 200 \(\d+ ms\)$/m);
    expect(run.stderr).not.toContain('demo-secret');
    expect(secretLooking(run.stderr)).toEqual([]);
  });

  it('is hermetic: a corrupt config file is not read; a bad HTTP variable is exit 2, nothing left listening', async () => {
    const corrupt = freshConfigDir();
    writeFileSync(join(corrupt, 'config.json'), '{ not json');
    const hermetic = await runCli(['demo'], corrupt);
    expect(hermetic.code, hermetic.stderr).toBe(0);
    // A process: one that kept its mock listening would never exit (the test's timeout ends it).
    const bad = await runCliProcess(['demo'], freshConfigDir(), {
      env: { DASVC_HTTP_TIMEOUT: 'bogus' },
    });
    expect(bad.code, bad.stderr).toBe(2);
    expect(bad.stderr).toMatch(/DASVC_HTTP_TIMEOUT/);
  });
});

describe('dasvc demo behind a company proxy', () => {
  // Regression: with HTTP_PROXY set and no NO_PROXY for loopback, the demo sent the requests for
  // its own embedded mock to the proxy, and `npm start` failed (exit 4).
  it('reaches its embedded mock directly, whatever the proxy variables say', async () => {
    const sink = { write: () => true };
    const proxy = 'http://127.0.0.1:9';
    const steps = await runDemo(
      { browser: false, json: true },
      {
        stdout: sink,
        stderr: sink,
        style: plain,
        openBrowser: async () => undefined,
        startMock: (options) => startMockServer({ ...options, log: () => undefined }),
        now: Date.now,
        env: { HTTP_PROXY: proxy, http_proxy: proxy, NO_PROXY: 'example.com' },
      },
    );
    expect(steps).toHaveLength(6);
  });
});

describe('dasvc demo --browser when nobody approves', () => {
  it("times out with the demo's own hint, not login's --timeout, and stops its mock", async () => {
    let stopped = false;
    const sink = { write: () => true };
    const run = runDemo(
      { browser: true, json: true },
      {
        stdout: sink,
        stderr: sink,
        style: plain,
        openBrowser: async () => undefined,
        startMock: async (options) => {
          const mock = await startMockServer({ ...options, log: () => undefined });
          return {
            ...mock,
            close: async () => {
              stopped = true;
              await mock.close();
            },
          };
        },
        now: Date.now,
        browserTimeoutMs: 200,
      },
    );
    const error = await run.catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'login_timeout', exitCode: 4 });
    const hint = hintFor(error as Parameters<typeof hintFor>[0]);
    expect(hint).toContain('consent page');
    expect(hint).not.toContain('--timeout');
    expect(stopped).toBe(true);
  });
});
