import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OAuth2Server } from 'oauth2-mock-server';
import { describe, expect, it } from 'vitest';
import { RULES } from '../../src/check/rule-catalogue.js';
import { startMockServer } from '../../src/mock/index.js';
import { browserEnv, expectNoLeaksAfterAll, runCli, spawnCli } from '../helpers/cli.js';
import { checkAgainstMock, checkArgs, cleanUp, statuses } from '../helpers/check-mock.js';

expectNoLeaksAfterAll();

const ALL_IDS = RULES.map(([id]) => id).sort();

/** A throwaway folder for one test's config and files. */
function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'dasvc-check-'));
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** No stack trace, no unhandled error: the check ended through main's error report. */
function expectNoCrash(stderr: string): void {
  expect(stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
  expect(stderr).not.toMatch(/Unhandled|TypeError|ReferenceError/);
}

// The file's checks wait on time limits and hostile servers, each with servers of its own: they
// run side by side (a worker waiting 5 s in turn was a core idle in the suite).
describe.concurrent('dasvc check against hostile installations', () => {
  describe('Ctrl-C', () => {
    // SIGTERM too (a cancelled CI job): it left the tokens live, killed by the signal.
    it.each([
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const)(
      'a check stopped by %s while it waits leaves no token alive (exit %i)',
      async (signal, exitCode) => {
        const dir = tempDir();
        const stateFile = join(dir, 'state.json');
        const mock = await startMockServer({
          port: 0,
          autoApprove: 'alice',
          accessTtl: '60s',
          stateFile,
        });
        try {
          const child = spawnCli(
            [
              ...checkArgs(mock.url),
              '--max-wait',
              '5m',
              '--only',
              'token.expires-in,refresh.after-expiry,revoke.refresh-token',
            ],
            dir,
            browserEnv(),
          );
          let stderr = '';
          const waiting = new Promise<void>((resolve) =>
            child.stderr.on('data', (chunk: Buffer) => {
              stderr += chunk.toString();
              if (stderr.includes('for the access token to expire')) resolve();
            }),
          );
          const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
          await waiting;
          child.kill(signal);
          expect(await exited).toBe(exitCode);
          expect(stderr).toMatch(/Revoked the \d+ tokens? this check obtained/);
        } finally {
          await mock.close();
        }
        try {
          const state = JSON.parse(readFileSync(stateFile, 'utf8')) as {
            grants: [number, { access?: string; refresh?: string }][];
          };
          expect(state.grants.filter(([, g]) => g.access || g.refresh)).toEqual([]);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    );
  });

  describe('a third-party OAuth server (oauth2-mock-server)', () => {
    it('checked with --params body and endpoint overrides, runs to the end with deviations', async () => {
      const server = new OAuth2Server();
      await server.issuer.keys.generate('RS256');
      await server.start(0, '127.0.0.1');
      const url = server.issuer.url!;
      const dir = tempDir();
      try {
        const result = await runCli(
          [
            'check',
            '--client-id',
            'third-party',
            '--client-secret',
            'its-secret',
            '--scope',
            'crm wiki',
            '--params',
            'body',
            '--authorize-url',
            `${url}/authorize`,
            '--token-url',
            `${url}/token`,
            '--refresh-url',
            `${url}/token`,
            '--revoke-url',
            `${url}/revoke`,
            '--api-url',
            `${url}/api/{scope}`,
            '--save-quirks',
            join(dir, 'quirks.json'),
            '--timeout',
            '10',
          ],
          dir,
          { env: browserEnv(), timeoutMs: 60_000 },
        );
        expectNoCrash(result.stderr);
        expect(result.code, result.stderr).toBe(1);
        const seen = statuses(result.stdout);
        expect(Object.keys(seen).sort()).toEqual(ALL_IDS);
        expect(seen['redirect.code-and-state']).toBe('ok');
        expect(seen['token.members']).toBe('ok');
        expect(seen['endpoints.token-path']).toBe('skipped');
        // Its unknown-token revocation answers as a known one does (RFC 7009), not SERVICE.md's text.
        expect(seen['revoke.unknown-token']).toBe('ok');
        // No API there: what the JSON-RPC rules and the revoked access token need was not measured.
        expect(seen['jsonrpc.discover']).toBe('skipped');
        expect(seen['api.missing-bearer']).toBe('skipped');
        expect(result.stdout).toMatch(
          /^skipped +revoke\.access-token +the access token did not work before the revocation: the API answered HTTP 404/m,
        );
        expect(JSON.parse(readFileSync(join(dir, 'quirks.json'), 'utf8'))).toBeTypeOf('object');
      } finally {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  /**
   * Serves `handler` on 127.0.0.1, checks every rule against it with a browser that never approves,
   * and expects the run to end through main with `code`, every rule reported; returns the report.
   * `httpTimeout` is how long each request may take: short only for an installation that never
   * answers (it is waited out for each request); one that answers at once gets its answer in
   * time on a loaded machine too.
   */
  async function checkBadInstallation(
    handler: Parameters<typeof createServer>[1],
    code: number,
    httpTimeout = '30s',
  ): Promise<{ stdout: string; stderr: string; seen: Record<string, string> }> {
    const server = createServer(handler);
    const url = await listen(server);
    const dir = tempDir();
    try {
      const result = await runCli([...checkArgs(url), '--timeout', '300ms'], dir, {
        env: { ...browserEnv('none'), DASVC_HTTP_TIMEOUT: httpTimeout },
        timeoutMs: 60_000,
      });
      expectNoCrash(result.stderr);
      expect(result.code, result.stderr).toBe(code);
      const seen = statuses(result.stdout);
      expect(Object.keys(seen).sort()).toEqual(ALL_IDS);
      return { stdout: result.stdout, stderr: result.stderr, seen };
    } finally {
      await close(server);
      rmSync(dir, { recursive: true, force: true });
    }
  }

  describe('bad installations: each rule reports it, nothing crashes', () => {
    // The browser (none here) never came back: the check did not finish, exit 4 (the login's
    // timeout), with what it measured all the same.
    // A rule deviates before the authorization stops the check: exit 1, the stop said on stderr.
    it('one that answers HTML to everything (exit 1: a rule deviates)', async () => {
      const { stdout, stderr, seen } = await checkBadInstallation((req, res) => {
        req.resume();
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<!doctype html><title>Welcome</title><p>It works!</p>');
      }, 1);
      expect(stderr).toMatch(/the check's authorization did not succeed/);
      expect(stderr).toMatch(/^dasvc: \d+ rules? deviates? from the service's rules$/m);
      expect(seen['client.wrong-secret']).toBe('deviates');
      expect(seen['redirect.code-and-state']).toBe('skipped');
      expect(seen['jsonrpc.batch']).toBe('skipped');
      expect(stdout).toContain('< HTTP 200 text/html');
    });

    // Nothing answered: nothing was measured, so nothing deviates; no authorization is tried.
    it('one that resets every connection (exit 4: nothing answered)', async () => {
      const { stdout, seen } = await checkBadInstallation((req) => req.socket.destroy(), 4);
      expect(Object.values(seen).filter((status) => status === 'deviates')).toEqual([]);
      expect(seen['api.missing-bearer']).toBe('skipped');
      expect(stdout).toMatch(/skipped +api\.missing-bearer +no answer \(/);
      expect(stdout).toMatch(/skipped +jsonrpc\.batch +no answer from the installation/);
    });

    it('one that never answers (exit 4 after each request timed out)', async () => {
      const { stdout, seen } = await checkBadInstallation(() => undefined, 4, '300ms');
      expect(seen['revoke.unknown-token']).toBe('skipped');
      expect(stdout).toMatch(/no answer .*within 0.3 s/);
    });

    // The OAuth half answers and the API (at an address of its own) never does: the rules that
    // need the API went unmeasured, which is no conformant installation.
    it('one whose API alone never answers (exit 4, the OAuth rules measured, no quirks file)', async () => {
      const silent = createServer(() => undefined);
      const api = `${await listen(silent)}/{scope}`;
      try {
        const checked = await checkAgainstMock({}, () => ['--api-url', api], {
          DASVC_HTTP_TIMEOUT: '300ms',
        });
        try {
          const { result } = checked;
          expectNoCrash(result.stderr);
          expect(result.code, result.stderr).toBe(4);
          expect(result.stderr).toMatch(
            /^dasvc: the API did not answer any call of the check \(no answer from http:\/\/127\.0\.0\.1:\d+\/crm within 0\.3 s/m,
          );
          const seen = statuses(result.stdout);
          expect(seen['refresh.rotation']).toBe('ok');
          expect(seen['api.wrong-bearer']).toBe('skipped');
          expect(result.stdout).toMatch(
            /^skipped +jsonrpc\.batch +the API did not answer a call with a fresh access token \(no answer from/m,
          );
          expect(Object.values(seen)).not.toContain('deviates');
          expect(checked.saved).toBeUndefined();
          expect(checked.live).toEqual([]);
        } finally {
          cleanUp(checked);
        }
      } finally {
        silent.closeAllConnections();
        await close(silent);
      }
    });

    /**
     * `dasvc check <extra>` against a mock of its own that shows its consent page: the browser
     * (the stand-in, approving as alice) is what each authorization waits for.
     */
    async function checkOwnMock(extra: string[], env: Record<string, string>) {
      const mock = await startMockServer({ port: 0 });
      const dir = tempDir();
      try {
        const result = await runCli([...checkArgs(mock.url), ...extra], dir, {
          env,
          timeoutMs: 30_000,
        });
        expectNoCrash(result.stderr);
        return result;
      } finally {
        await mock.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }

    // Regression: the check exited 4 ("no answer … to any request") when its rules had sent no
    // request of their own, and a redirect deviation showed no evidence.
    it('a redirect whose state changed: deviates with the browser half as evidence, exit 1', async () => {
      const result = await checkOwnMock(
        ['--only', 'redirect.code-and-state', '--timeout', '20'],
        browserEnv('forge'),
      );
      expect(result.code, result.stderr).toBe(1);
      const line = result.stdout.trim();
      expect(line).toMatch(
        /^deviates +redirect\.code-and-state +the redirect carried another state/,
      );
      expect(line).toMatch(
        / — evidence: > GET http:\/\/127\.0\.0\.1:\d+\/webservice\/authorize\/?\?\S*state=\[redacted\]/,
      );
      expect(line).toMatch(
        /< the browser was redirected to http:\/\/127\.0\.0\.1:\d+\/callback\?\S*state=\[redacted\]/,
      );
    });

    // Regression: an unknown client id (an error page, never a redirect) was reported as two
    // deviations of the installation after three full --timeout waits.
    it('an unknown client id: exit 3 after one authorization, not deviations after three', async () => {
      // Also when revoke.unknown-token, whose request tells, is not among the rules run.
      for (const only of [[], ['--only', 'redirect.,refresh.']]) {
        const args = ['--client-id', 'zzz', '--timeout', '1', ...only];
        const result = await checkOwnMock(args, browserEnv());
        expect(result.code, result.stdout).toBe(3);
        // The installation's own error page, read by the login's first request, says why.
        expect(result.stderr).toContain('invalid_client: unknown client_id "zzz"');
        expect(result.stderr.match(/Authorization \d of at most 3/g)).toHaveLength(1);
        expect(Object.values(statuses(result.stdout))).not.toContain('deviates');
      }
    });

    // No redirect: nothing of the installation's was measured, so nothing deviates; the check
    // ends with the login's own exit code (4: timed out).
    it('a browser that never arrives: one wait of --timeout, the later authorizations not tried', async () => {
      const result = await checkOwnMock(['--timeout', '1'], browserEnv('none'));
      expect(result.code, result.stderr).toBe(4);
      expect(result.stderr).toContain("the check's authorization did not succeed: login timed out");
      expect(result.stderr.match(/Authorization \d of at most 3/g)).toHaveLength(1);
      expect(result.stdout).toMatch(
        /^skipped +redirect\.code-and-state +not run: login timed out/m,
      );
      expect(result.stdout).toMatch(/^skipped +refresh\.new-pair +not run: login timed out/m);
      expect(result.stdout).not.toMatch(/^deviates/m);
    });

    it('one that is not there: exit 4 at once, without waiting for a login (--timeout 300 s)', async () => {
      const server = createServer();
      const url = await listen(server);
      await close(server);
      const dir = tempDir();
      try {
        const result = await runCli(checkArgs(url), dir, {
          env: browserEnv('none'),
          timeoutMs: 20_000,
        });
        expectNoCrash(result.stderr);
        expect(result.code, result.stderr).toBe(4);
        expect(result.stderr).toContain(`no answer from ${url}`);
        expect(result.stderr).not.toContain('Authorization 1 of at most 3');
        const seen = statuses(result.stdout);
        expect(Object.keys(seen).sort()).toEqual(ALL_IDS);
        expect(Object.values(seen).filter((status) => status === 'deviates')).toEqual([]);
        // --json: one document, the report with the failure as its `error` member.
        const json = await runCli(['--json', ...checkArgs(url)], dir, {
          env: browserEnv('none'),
          timeoutMs: 20_000,
        });
        expect(json.code, json.stderr).toBe(4);
        const document = JSON.parse(json.stdout) as {
          installation: string;
          rules: { id: string; status: string }[];
          error: { code: string; exitCode: number; message: string };
        };
        expect(document.installation).toBe(url);
        expect(Object.fromEntries(document.rules.map((r) => [r.id, r.status]))).toEqual(seen);
        expect(document.error).toMatchObject({ code: 'no_answer', exitCode: 4 });
        expect(document.error.message).toContain(`no answer from ${url}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
