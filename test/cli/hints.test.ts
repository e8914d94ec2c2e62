// The hints of the CLI, one function of an error's code and facts (src/cli/hints/): for each kind
// of error, the error as the code below the CLI makes it (no hint of its own) and the hint that
// the CLI prints under it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hintFor } from '../../src/cli/hints/hint-for.js';
import {
  refusedForTheClient,
  stoppedByCredentials,
  stoppedByRefusal,
  stoppedUnmeasured,
} from '../../src/check/authorization.js';
import { selectRules } from '../../src/check/rule-catalogue.js';
import { clientRefused } from '../../src/client/client-refused.js';
import { notLoggedIn } from '../../src/client/session-errors.js';
import {
  AuthError,
  DasvcError,
  InterruptedError,
  NetworkError,
  sameKind,
  ServiceError,
  UsageError,
} from '../../src/errors.js';
import { networkErrorFrom } from '../../src/http/network-error.js';
import { processTokenResponse } from '../../src/oauth/token-response.js';
import { proxySettings } from '../../src/http/proxy.js';
import { ResponseTooLargeError } from '../../src/http/response-limit.js';
import { parseQuirks } from '../../src/mock/core/quirks.js';
import { QUIRK_MEMBERS } from '../../src/schemas/quirks.js';
import { loadStateFile } from '../../src/mock/core/state-file.js';
import { loadFixtures } from '../../src/mock/fixture-format/load-fixtures.js';
import { startMockServer } from '../../src/mock/index.js';
import { CLIENT_REFUSALS } from '../../src/oauth/client-refusals.js';
import { processProbeResponse } from '../../src/oauth/authorization-probe.js';
import { parseCallback } from '../../src/oauth/callback.js';
import { parseParams } from '../../src/rpc/params.js';
import { startLoopback } from '../../src/oauth/loopback.js';
import { KeychainUnavailable } from '../../src/store/keychain.js';
import { keychainUnreachable } from '../../src/store/profile-secrets.js';
import { instancesFrom } from '../../src/typegen/contract-sources.js';
import { scratchDir } from '../helpers/scratch.js';

/** What `run` throws (it must throw a DasvcError). */
async function thrown(run: () => unknown): Promise<DasvcError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(DasvcError);
    return error as DasvcError;
  }
  throw new Error('nothing was thrown');
}

/** A socket error as node reports it. */
const socketError = (code: string, more: Record<string, unknown> = {}) =>
  Object.assign(new Error(code), { code, ...more });

const URL_ = 'https://das.example.com/webservice/json/crm';
const PROXY_HINT = 'check HTTP_PROXY / HTTPS_PROXY, or list the host in NO_PROXY';

describe('below the CLI, errors carry facts, not hints', () => {
  it('a network failure has its code and facts, and no hint of its own', () => {
    const error = networkErrorFrom(socketError('ECONNREFUSED'), URL_, 1000);
    expect(error.hint).toBeUndefined();
    expect(error.facts).toEqual({ proxied: false });
  });

  it("the service's words stay in detail, dasvc's facts in facts, when a failure is retold", () => {
    const said = new AuthError('the service refused: invalid_scope', {
      code: 'invalid_scope',
      detail: 'scope wiki is not offered to this client',
    });
    const stopped = stoppedByRefusal(said).refusal;
    expect(stopped.detail).toBe('scope wiki is not offered to this client');
    expect(stopped.facts).toEqual({ during: 'check' });
    const client = new AuthError('x', { code: 'invalid_client', detail: 'unknown client' });
    const refused = clientRefused(client, { profile: 'w', clientId: 'c', secretFrom: 'env' });
    expect(refused).toMatchObject({
      detail: 'unknown client',
      facts: { profile: 'w', clientId: 'c', secretFrom: 'env' },
    });
  });

  it("the service's words never make a hint, even when they look like dasvc's facts", () => {
    const answer = new AuthError('x', { code: 'not_logged_in', detail: { profile: 'work' } });
    expect(hintFor(answer)).toBeUndefined();
    const facts = new AuthError('x', { code: 'not_logged_in', facts: { profile: 'work' } });
    expect(hintFor(facts)).toBe('dasvc login --profile work');
  });

  it("a hint a command of the CLI gave wins over the code's", () => {
    const error = new UsageError('x', { code: 'lock_timeout', hint: 'the command’s own' });
    expect(hintFor(error)).toBe('the command’s own');
  });
});

describe('network (exit 4)', () => {
  it('at the service: what to check, by what failed', () => {
    const hint = (error: unknown) => hintFor(networkErrorFrom(error, URL_, 1000));
    expect(hint(socketError('ECONNREFUSED'))).toBe(
      'check the address, and that the service is running',
    );
    expect(hint(socketError('ECONNRESET'))).toBe(
      'try again; if it keeps happening, a proxy or the service drops the request',
    );
    expect(hint(Object.assign(new Error('t'), { name: 'TimeoutError' }))).toBe(
      'try again; DASVC_HTTP_TIMEOUT=<seconds> allows more time',
    );
    expect(hint(socketError('ETIMEDOUT'))).toBe(
      'check the address and your network; DASVC_HTTP_TIMEOUT=<seconds> allows more time',
    );
    expect(hint(socketError('ENOTFOUND', { hostname: 'das.example.com' }))).toBe(
      'check the host name in the base URL, and your network or DNS settings',
    );
    expect(hint(socketError('EHOSTUNREACH'))).toBe(
      'check your network connection (and VPN or proxy settings)',
    );
    expect(hint(socketError('SELF_SIGNED_CERT_IN_CHAIN'))).toBe(
      'NODE_EXTRA_CA_CERTS=<ca.pem> adds the CA that signed it',
    );
    expect(hint(socketError('CERT_HAS_EXPIRED'))).toBeUndefined();
    expect(hint(new Error('something odd'))).toBeUndefined();
    expect(hint(new ResponseTooLargeError(10))).toBe(
      'an OAuth or JSON-RPC answer is far smaller: check that the URL is the service',
    );
  });

  it('at a proxy: the proxy variables', () => {
    const proxy = 'http://proxy.invalid:3128';
    const at = (code: string) =>
      hintFor(networkErrorFrom(socketError(code, { hostname: 'proxy.invalid' }), URL_, 1, [proxy]));
    for (const code of ['ECONNREFUSED', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH'])
      expect(at(code), code).toBe(PROXY_HINT);
    expect(hintFor(networkErrorFrom(new ResponseTooLargeError(10), URL_, 1, [proxy]))).toBe(
      "an OAuth or JSON-RPC answer is far smaller: check that the URL is the service, and that the proxy passes the service's answers on",
    );
    // A tunnel refused, as undici reports it: a cause whose code is a number, then its words.
    const refused = (status: number) =>
      Object.assign(new TypeError('fetch failed'), {
        cause: Object.assign(new Error('Request was cancelled.'), {
          code: 0,
          cause: new Error(`Proxy response (${status}) !== 200 when HTTP Tunneling`),
        }),
      });
    expect(hintFor(networkErrorFrom(refused(407), URL_, 1, [proxy]))).toBe(
      "the proxy wants credentials: give them in the proxy variable's URL (http://user:password@host:port), or check those it has",
    );
    expect(hintFor(networkErrorFrom(refused(502), URL_, 1, [proxy]))).toBe(PROXY_HINT);
  });

  it('a login that timed out: run it again, with --timeout for more time', () => {
    const error = new NetworkError('login timed out', {
      code: 'login_timeout',
      facts: { timeoutSeconds: 300 },
    });
    expect(hintFor(error)).toBe('run dasvc login again (use --timeout SECONDS for more time)');
  });

  it("the login's own refusals: a state that does not match, no authorization page", async () => {
    const forged = await thrown(() =>
      parseCallback(new URLSearchParams('code=c&state=forged'), 'sent'),
    );
    expect(hintFor(forged)).toBe(
      'start again with dasvc login; if this repeats, someone may be forging redirects',
    );
    const missing = await thrown(() =>
      processProbeResponse(
        { status: 404, headers: {}, text: 'Not Found' },
        'http://127.0.0.1:9/authorize?client_id=x',
        'http://127.0.0.1:8/callback',
      ),
    );
    expect(missing.code).toBe('no_authorization_page');
    expect(hintFor(missing)).toBe(
      'check --authorize-url (or --base-url): the installation shows no authorization page there',
    );
  });

  it("the installation's refusals by redirect that the person can act on", async () => {
    const redirect = (error: string) =>
      thrown(() => parseCallback(new URLSearchParams(`error=${error}&state=s`), 's'));
    expect(hintFor(await redirect('access_denied'))).toBe(
      'the authorization was declined on the consent page: run dasvc login again and approve it',
    );
    expect(hintFor(await redirect('invalid_scope'))).toBe(
      'ask only for instances this user may use: dasvc login --scope "<instances>"',
    );
    expect(hintFor(await redirect('server_error'))).toBeUndefined();
    // The same codes from a token answer are the service's words, not a redirect's.
    expect(hintFor(new AuthError('x', { code: 'access_denied' }))).toBeUndefined();
  });
});

describe('usage (exit 2)', () => {
  it('a key:= item that is no JSON: its string form, without repeating the text', async () => {
    const sources = { readFile: () => '', readStdin: () => '' };
    const typed = await thrown(() => parseParams(['id:=hunter2'], sources));
    expect(hintFor(typed)).toBe('id=… sends text as a string; id:=… takes JSON only');
    // A whole JSON argument that is no JSON names no param.
    expect(hintFor(await thrown(() => parseParams(['{broken'], sources)))).toBeUndefined();
  });

  it('a proxy variable that is no URL', async () => {
    const error = await thrown(() => proxySettings({ HTTPS_PROXY: 'no url' }));
    expect(hintFor(error)).toBe("set it to the proxy's URL (http://host:port), or unset it");
  });

  it("the mock's quirks, state file and fixtures folder", async () => {
    const quirks = await thrown(() => parseQuirks({ nonsense: true }));
    expect(hintFor(quirks)).toBe(`members: ${QUIRK_MEMBERS.join(', ')}`);
    const dir = scratchDir('dasvc-hints-');
    const state = join(dir, 'state.json');
    writeFileSync(state, 'not json\n');
    expect(hintFor(await thrown(() => loadStateFile(state)))).toBe(
      'it was left untouched; move it away or pass another --state-file',
    );
    writeFileSync(join(dir, 'users.json'), '{');
    expect(hintFor(await thrown(() => loadFixtures(dir)))).toBe(
      `fix the file or point --fixtures at another folder (now ${dir})`,
    );
    const absent = await thrown(() => loadFixtures(join(dir, 'nope')));
    expect(absent).toMatchObject({ code: 'bad_fixture', facts: { absent: true } });
    expect(hintFor(absent)).toBe(
      "check the path given to --fixtures; without it the mock serves the package's own",
    );
  });

  it("a port taken: the mock's and the login's own flags", async () => {
    const taken = await listening();
    const mock = await thrown(() => startMockServer({ port: taken, log: () => undefined }));
    expect(mock).toMatchObject({ code: 'listen_failed', facts: { errno: 'EADDRINUSE' } });
    expect(hintFor(mock)).toBe('choose another --port (0 picks a free one) or --host');
    const login = await thrown(() => startLoopback(taken, async () => ({ status: 200, html: '' })));
    expect(login).toMatchObject({ code: 'listen_failed', facts: { errno: 'EADDRINUSE' } });
    expect(hintFor(login)).toBe('choose another --port, or omit it for a free one');
    // A port this user may not take (below 1024 without privileges): said so.
    const privileged = new UsageError('cannot listen on 127.0.0.1:80: EACCES', {
      code: 'listen_failed',
      facts: { port: 80, errno: 'EACCES' },
    });
    expect(hintFor(privileged)).toBe(
      'ports below 1024 need privileges: choose another --port, or omit it for a free one',
    );
  });

  it('a redirect with a parameter twice: log in again, and what it may mean', () => {
    let refused: unknown;
    try {
      parseCallback(new URLSearchParams('state=S&state=T&code=C'), 'S');
    } catch (error) {
      refused = error;
    }
    expect(hintFor(refused as DasvcError)).toBe(
      'start again with dasvc login and paste the redirect as the browser shows it; if this repeats, someone may be forging redirects',
    );
  });

  it('an unknown user of the fixtures', () => {
    const error = new UsageError('unknown user "mallory"', {
      code: 'unknown_user',
      facts: { users: ['alice', 'bob'] },
    });
    expect(hintFor(error)).toBe('users in the fixtures: alice, bob');
  });

  it("dasvc types --from: what it reads, a folder's instances, a document's name", async () => {
    expect(hintFor(await thrown(() => instancesFrom('/no/such/contract', [])))).toBe(
      'give an OpenRPC document, a fixtures folder, or a folder written by dasvc mock --record',
    );
    const fixtures = join(import.meta.dirname, '../../fixtures');
    expect(hintFor(await thrown(() => instancesFrom(fixtures, ['billing'])))).toBe(
      'its instances: crm, wiki',
    );
    const unnamed = join(scratchDir('dasvc-hints-'), 'my contract.json');
    writeFileSync(unnamed, '{}');
    expect(hintFor(await thrown(() => instancesFrom(unnamed, [])))).toBe(
      `name it: dasvc types SCOPE --from ${unnamed}`,
    );
    // A broken folder: every broken file named, with the facts of --from, not of --fixtures.
    const broken = scratchDir('dasvc-hints-');
    mkdirSync(join(broken, 'instances'));
    writeFileSync(join(broken, 'instances', 'crm.json'), '{');
    writeFileSync(join(broken, 'instances', 'wiki.openrpc.json'), '{');
    const folder = await thrown(() => instancesFrom(broken, []));
    expect(folder.message.split('\n')).toHaveLength(2);
    expect(folder.facts).toEqual({ from: broken });
    expect(hintFor(folder)).toBe('fix the file or point --from at another document or folder');
    const missing = new UsageError('x', {
      code: 'generator_missing',
      facts: { package: 'json-schema-to-typescript' },
    });
    expect(hintFor(missing)).toBe('npm install -D json-schema-to-typescript');
  });

  it('dasvc check --only: the rules there are', async () => {
    const error = await thrown(() => selectRules('nonsense'));
    expect(hintFor(error)).toMatch(/^rules: redirect\.code-and-state, /);
  });

  it('the lock of the config file', () => {
    expect(hintFor(new UsageError('x', { code: 'lock_timeout', facts: { lock: '/x.lock' } }))).toBe(
      'remove it if no dasvc is running',
    );
    // No lock to remove when its folder could not take it: the folder is what to fix.
    const failed = (errno: string) =>
      new UsageError('x', {
        code: 'lock_failed',
        facts: { lock: '/x/c.lock', folder: '/x', errno },
      });
    for (const errno of ['EROFS', 'EACCES', 'EPERM'])
      expect(hintFor(failed(errno)), errno).toBe('make /x writable');
    expect(hintFor(failed('ENOTDIR'))).toBeUndefined();
  });

  it('a config folder that cannot be written', () => {
    const unwritable = (facts: Record<string, string>) =>
      new UsageError('x', { code: 'config_unwritable', facts });
    expect(hintFor(unwritable({ folder: '/etc', errno: 'EACCES' }))).toBe(
      'make /etc writable, or set DASVC_CONFIG_DIR to a folder that is',
    );
    expect(hintFor(unwritable({ folder: '/etc', errno: 'ENOSPC' }))).toBeUndefined();
    expect(hintFor(unwritable({}))).toBeUndefined();
  });

  it('the same code without the facts of the case gets no hint', () => {
    expect(hintFor(new UsageError('x', { code: 'bad_state_file' }))).toBeUndefined();
    expect(hintFor(new UsageError('x', { code: 'bad_quirks' }))).toBeUndefined();
    expect(hintFor(new UsageError('x', { code: 'bad_scope' }))).toBeUndefined();
    expect(hintFor(new UsageError('x', { code: 'bad_fixture' }))).toBeUndefined();
    expect(hintFor(new UsageError('x', { code: 'unknown_user' }))).toBeUndefined();
    expect(hintFor(new UsageError('x', { code: 'bad_record_dir' }))).toBeUndefined();
  });

  it("an error code a server sent (an OAuth error) gets none of dasvc's own advice", () => {
    // OAuth errors carry the server's `error` as their code and its description as the detail.
    for (const code of [
      'lock_failed',
      'lock_timeout',
      'config_unwritable',
      'keychain_unavailable',
      'bad_proxy',
      'connection_reset',
      'response_too_large',
      'timeout',
      'login_timeout',
      'state_mismatch',
      'no_authorization_page',
    ]) {
      const error = new AuthError(`the service refused: ${code}`, { code, detail: 'as it said' });
      expect(hintFor(error), code).toBeUndefined();
    }
  });
});

describe('auth (exit 3)', () => {
  it("a profile's session: its login; a profile that does not exist: the nearest name", () => {
    expect(hintFor(notLoggedIn('default'))).toBe('dasvc login');
    expect(hintFor(notLoggedIn('work'))).toBe('dasvc login --profile work');
    expect(hintFor(notLoggedIn('wrok', { profiles: ['default', 'work'] }))).toBe(
      'did you mean --profile work? (dasvc profile list shows them all)',
    );
  });

  it('a client the service did not accept: the secret sent, and where it came from', () => {
    const refused = clientRefused(new AuthError('refused', { code: 'invalid_client' }), {
      profile: 'default',
      clientId: 'demo-client',
      secretFrom: 'env',
    }) as DasvcError;
    expect(hintFor(refused)).toBe(
      'the client secret in DASVC_CLIENT_SECRET was not accepted for client demo-client (profile default): give the right one with --client-secret or DASVC_CLIENT_SECRET, or check that the client id is registered',
    );
  });

  it('a client the authorization endpoint does not know: its id, no secret being sent', async () => {
    const unknown = await thrown(() =>
      processProbeResponse(
        { status: 400, headers: {}, text: '{"error":"invalid_client"}' },
        'http://127.0.0.1:9/authorize?client_id=nobody',
        'http://127.0.0.1:8/callback',
      ),
    );
    const refused = clientRefused(unknown, {
      profile: 'default',
      clientId: 'nobody',
      secretFrom: 'env',
    }) as DasvcError;
    expect(hintFor(refused)).toBe(
      'the installation does not know client nobody (profile default): check --client-id or DASVC_CLIENT_ID',
    );
  });

  it('a refused token: the login that keeps the scopes held, or the token given', () => {
    const forbidden = new AuthError('403', {
      code: 'insufficient_scope',
      facts: { profile: 'work', scope: 'wiki', granted: 'crm' },
    });
    expect(hintFor(forbidden)).toBe('dasvc login --profile work --scope "crm wiki"');
    const given = new AuthError('401', {
      code: 'invalid_token',
      facts: { scope: 'crm', tokenFrom: 'DASVC_TOKEN' },
    });
    expect(hintFor(given)).toMatch(/^DASVC_TOKEN holds a token the service refused: /);
  });

  it("the OS credential store: a login here, or the file's storage", () => {
    const error = keychainUnreachable('default', new KeychainUnavailable('no D-Bus'));
    expect(hintFor(error)).toBe(
      'log in again here; dasvc login --insecure-storage keeps them in the config file (0600)',
    );
    const corrupt = new UsageError('x', { code: 'keychain_corrupt', facts: { profile: 'work' } });
    expect(hintFor(corrupt)).toBe('log in again to replace it: dasvc login --profile work');
  });

  it("dasvc check's authorization: the check's flags, never a login", () => {
    const denied = new AuthError('denied', { code: 'access_denied' });
    expect(hintFor(stoppedByRefusal(denied).refusal)).toBe(
      'approve the consent page: every rule after it needs the tokens',
    );
    const credentials =
      'check --client-id, --client-secret and --scope (or the profile) against the installation';
    const scope = new AuthError('bad scope', { code: 'invalid_scope' });
    expect(hintFor(stoppedByRefusal(scope).refusal)).toBe(credentials);
    expect(hintFor(stoppedByCredentials('no redirect').refusal)).toBe(credentials);
    // Every refusal that stops the check (one list) gets the check's hint, never a login.
    for (const code of CLIENT_REFUSALS) {
      const refusal = stoppedByRefusal(new AuthError('refused', { code })).refusal;
      expect(refusedForTheClient(refusal), code).toBe(true);
      expect(hintFor(refusal), code).toMatch(/^(approve the consent page|check --client-id)/);
    }
  });

  it('a logout that kept the tokens: --forget, after the secret when the client was refused', () => {
    // As src/client/logout.ts retells the first failed revoke.
    const kept = (first: DasvcError, profile: string) =>
      sameKind(first, 'could not revoke', { facts: { profile, keptTokens: true }, cause: first });
    const down = new ServiceError('HTTP 503', { code: 'http_503', status: 503 });
    expect(hintFor(kept(down, 'default'))).toBe(
      'dasvc logout --forget deletes them locally anyway',
    );
    const client = clientRefused(new AuthError('refused', { code: 'invalid_client' }), {
      profile: 'work',
      clientId: 'demo-client',
      secretFrom: 'env',
    }) as DasvcError;
    expect(hintFor(kept(client, 'work'))).toBe(
      `${hintFor(client)}; or dasvc logout --profile work --forget deletes them locally anyway`,
    );
  });
});

describe('flows of a command', () => {
  it("dasvc check: a login that timed out, or the failure's own hint", () => {
    const timedOut = new NetworkError('login timed out', { code: 'login_timeout' });
    expect(hintFor(stoppedUnmeasured(timedOut).refusal)).toBe(
      'complete the authorization in the browser within --timeout, or pass --no-browser and paste the address the browser was sent to',
    );
    const refused = networkErrorFrom(socketError('ECONNREFUSED'), URL_, 1000);
    expect(hintFor(stoppedUnmeasured(refused).refusal)).toBe(
      'check the address, and that the service is running',
    );
  });

  it("dasvc demo: a login that timed out, in the demo's words", () => {
    const demo = (browser: boolean) =>
      new NetworkError('login timed out', {
        code: 'login_timeout',
        facts: { during: 'demo', browser },
      });
    expect(hintFor(demo(true))).toBe(
      'approve on the consent page the browser opened, in time; dasvc demo without --browser approves by itself',
    );
    expect(hintFor(demo(false))).toBe(
      'the embedded mock did not answer the login; run dasvc demo --verbose to see the exchange',
    );
  });
});

describe('service (exit 1) and interrupted (exit 130)', () => {
  it('an unknown instance: the scopes the profile was granted, nearest first', () => {
    const error = new ServiceError('404', {
      code: 'http_404',
      facts: { profile: 'default', scope: 'crn', granted: 'crm wiki' },
    });
    expect(hintFor(error)).toBe('did you mean crm? (profile default was granted scope crm wiki)');
  });

  it("an OAuth endpoint answering 404, as JSON or as a page: the endpoint's URL to check", () => {
    const refused = (what: string, text: string, type: string) => {
      try {
        processTokenResponse(
          { status: 404, headers: { 'content-type': type }, text },
          0,
          what,
          null,
        );
      } catch (error) {
        return error as DasvcError;
      }
      throw new Error('not refused');
    };
    const json = refused('token request', '{"error":"not_found"}', 'application/json');
    expect(json).toBeInstanceOf(ServiceError);
    expect(hintFor(json)).toBe('is the base URL or --token-url right?');
    const page = refused('refresh request', '<h1>Not Found</h1>', 'text/html');
    expect(page).toBeInstanceOf(NetworkError);
    expect(hintFor(page)).toBe('is the base URL or --refresh-url right?');
    // Another status is no missing endpoint.
    const busy = new ServiceError('x', {
      code: 'x',
      facts: { request: 'token request', status: 400 },
    });
    expect(hintFor(busy)).toBeUndefined();
  });

  it('a JSON-RPC error and Ctrl-C have none', () => {
    expect(hintFor(new ServiceError('x', { code: 'jsonrpc_error', detail: [1] }))).toBeUndefined();
    expect(hintFor(new InterruptedError('interrupted'))).toBeUndefined();
  });
});

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))),
  );
});

/** A port something listens on (127.0.0.1), closed after the test. */
async function listening(): Promise<number> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}
