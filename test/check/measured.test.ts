// `dasvc check` says `deviates` only when it measured a deviation: run in-process against the real
// mock app served on 127.0.0.1, wrapped so that one answer differs from the mock's own.
import { afterEach, describe, expect, it } from 'vitest';
import { run as checkRun } from '../../src/cli/commands/check/run.js';
import type { CheckOptions } from '../../src/cli/commands/check/run.js';
import { Probes } from '../../src/check/probes.js';
import type { DasvcError } from '../../src/errors.js';
import { createHttpClient } from '../../src/http/http-client.js';
import { createMockApp, type MockApp } from '../../src/mock/index.js';
import { cleanup, failure, fakeTerminal, type FakeTerminal } from '../helpers/cli-in-process.js';
import { statuses } from '../helpers/check-mock.js';
import { serveApp } from '../helpers/serve-app.js';
import { appTransport } from '../helpers/in-process.js';
import { hintFor } from '../../src/cli/hints/hint-for.js';

type App = (request: Request) => Promise<Response>;

const opened: string[] = [];
const closers: (() => Promise<void>)[] = [];
const terminals: FakeTerminal[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  for (const t of terminals.splice(0)) cleanup(t);
  opened.length = 0;
});

/** The user's browser: the authorization request (auto-approved), then the loopback redirect. */
async function browse(url: string): Promise<void> {
  opened.push(url);
  const consent = await fetch(url, { redirect: 'manual' });
  await consent.arrayBuffer();
  const location = consent.headers.get('location');
  if (location) await (await fetch(location)).arrayBuffer();
}

interface Checked {
  error: unknown;
  stdout: string;
  stderr: string;
  seen: Record<string, string>;
}

/**
 * `dasvc check` (every rule, the default --timeout) against the mock app wrapped by `wrap`,
 * auto-approving alice, in-process with the real HTTP client.
 */
async function check(wrap: (app: MockApp) => App, extra: Partial<CheckOptions> = {}) {
  const app = createMockApp({ autoApprove: 'alice', log: () => undefined });
  closers.push(() => app.close());
  const served = await serveApp(wrap(app));
  closers.unshift(served.close);
  const t = fakeTerminal({ send: createHttpClient({ env: {} }), openBrowser: browse });
  terminals.push(t);
  const options: CheckOptions = {
    baseUrl: served.url,
    clientId: 'demo-client',
    clientSecret: 'demo-secret',
    scope: 'crm wiki',
    ...extra,
  };
  const error = await failure(checkRun(options, t.deps));
  const checked: Checked = {
    error,
    stdout: t.stdout.text,
    stderr: t.stderr.text,
    seen: statuses(t.stdout.text),
  };
  return checked;
}

/** The app with `path`'s answers (any method) replaced by `answer(original)`. */
function rewrite(path: string, answer: (original: Response) => Response | Promise<Response>) {
  return (app: MockApp): App =>
    async (request) => {
      const response = await app(request);
      return new URL(request.url).pathname === path ? answer(response) : response;
    };
}

describe('revoke.unknown-token compares with the answer to a known token (RFC 7009 §2.2)', () => {
  it.each([
    ['200 {}', () => Response.json({})],
    ['200 with an empty body', () => new Response(null, { status: 200 })],
  ])(
    'an installation answering both alike with %s: ok (revoke.answer still deviates)',
    async (_, alike) => {
      const checked = await check(
        rewrite('/webservice/authorize/revoke', (original) =>
          original.status === 200 ? alike() : original,
        ),
      );
      expect(checked.seen['revoke.unknown-token'], checked.stdout).toBe('ok');
      expect(checked.stdout).toMatch(/^ok +revoke\.unknown-token +both answered HTTP 200/m);
      expect(checked.seen['revoke.answer']).toBe('deviates');
      expect(checked.seen['revoke.access-token']).toBe('ok');
      expect((checked.error as DasvcError).exitCode).toBe(1);
    },
  );
});

describe('a rule whose precondition failed is skipped with the reason', () => {
  it('an API that answers 404: revoke.access-token and the JSON-RPC rules skipped, nothing deviates', async () => {
    const checked = await check(
      (app) => async (request) =>
        new URL(request.url).pathname.startsWith('/webservice/json/')
          ? new Response('<h1>Not Found</h1>', {
              status: 404,
              headers: { 'content-type': 'text/html' },
            })
          : app(request),
    );
    expect(checked.stdout).toMatch(
      /^skipped +revoke\.access-token +the access token did not work before the revocation: the API answered HTTP 404 \(text\/html\)$/m,
    );
    for (const id of ['jsonrpc.batch', 'jsonrpc.discover', 'code.replay-revokes'])
      expect(checked.seen[id], id).toBe('skipped');
    expect(checked.seen['api.missing-bearer']).toBe('skipped');
    expect(checked.seen['revoke.refresh-token']).toBe('skipped');
    // What the API was not needed for is measured as ever.
    for (const id of ['code.single-use', 'refresh.rotation', 'revoke.unknown-token'])
      expect(checked.seen[id], id).toBe('ok');
    expect(checked.stdout).not.toMatch(/^deviates/m);
    expect(checked.error, checked.stderr).toBeUndefined();
  });

  // The default --timeout (300 s) would outlast the test: the authorization ends at once.
  it('an installation without the authorization path: ends at once, no browser, no deviation (exit 4)', async () => {
    const checked = await check(
      (app) => async (request) =>
        new URL(request.url).pathname === '/webservice/authorize/'
          ? new Response('<h1>Not Found</h1>', {
              status: 404,
              headers: { 'content-type': 'text/html' },
            })
          : app(request),
    );
    expect(opened).toEqual([]);
    const error = checked.error as DasvcError;
    expect(error.exitCode).toBe(4);
    const url = `${checked.stdout.match(/http:\/\/127\.0\.0\.1:\d+/)?.[0]}/webservice/authorize/`;
    expect(error.message).toBe(
      `the check's authorization did not succeed: no authorization page at ${url} (HTTP 404): Not Found`,
    );
    expect(error.code).toBe('no_authorization_page');
    expect(hintFor(error)).toMatch(/--authorize-url/);
    expect(checked.stdout).not.toMatch(/^deviates/m);
    expect(checked.stdout).toMatch(
      /^skipped +redirect\.code-and-state +not run: no authorization page at \S+ \(HTTP 404\): Not Found$/m,
    );
    expect(checked.seen['client.wrong-secret']).toBe('ok');
    expect(checked.stderr.match(/Authorization \d of at most 3/g)).toHaveLength(1);
  });
});

describe("the login flow's own authorization request (a GET through the check's send)", () => {
  it('is neither the code exchange nor an OAuth error answer of errors.shape', async () => {
    const app = createMockApp({ log: () => undefined });
    closers.push(() => app.close());
    const probes = new Probes(appTransport(app), {
      client: { clientId: 'zzz', clientSecret: 'x' },
      endpoints: {
        authorize: 'http://das.test/webservice/authorize/',
        token: 'http://das.test/webservice/authorize',
        refresh: 'http://das.test/webservice/authorize/refresh_token',
        revoke: 'http://das.test/webservice/authorize/revoke',
        api: 'http://das.test/webservice/json/{scope}',
      },
      placement: 'query',
    });
    const page = await probes.loginSend({
      method: 'GET',
      url: 'http://das.test/webservice/authorize/?client_id=zzz',
      headers: {},
    });
    expect(page.status).toBeGreaterThanOrEqual(400);
    expect(probes.lastLoginExchange).toBeUndefined();
    expect(probes.oauthErrors).toEqual([]);
    expect(probes.requests.answered).toBe(true);
  });
});
