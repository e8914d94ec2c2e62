import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { inspect } from 'node:util';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ExitCode, InterruptedError, NetworkError, ServiceError } from '../../src/errors.js';
import { Client } from '../../src/client/client.js';
import { createHttpClient } from '../../src/http/http-client.js';
import { dasvc, type DasvcClient, type SendFn } from '../../src/index.js';
import { startMockServer, type MockServer } from '../../src/mock/index.js';
import { memoryTokenStore, type TokenStore } from '../../src/store/token-store.js';
import { browserEnv } from '../helpers/cli.js';
import { redirectAfterConsent } from '../helpers/cli-browser.mjs';

let mock: Awaited<ReturnType<typeof startMockServer>>;
/** A mock that shows its consent page: a login through it needs the browser. */
let consenting: Awaited<ReturnType<typeof startMockServer>>;
beforeAll(async () => {
  mock = await startMockServer({ port: 0, autoApprove: 'bob', log: () => undefined });
  consenting = await startMockServer({ port: 0, log: () => undefined });
});
afterAll(() => Promise.all([mock.close(), consenting.close()]));

const settings = () => ({
  baseUrl: mock.url,
  clientId: 'demo-client',
  clientSecret: 'demo-secret',
  scope: 'crm',
  env: {},
});
const approve = async (url: string) => {
  const answer = await fetch(url, { redirect: 'manual' });
  await fetch(answer.headers.get('location')!);
};
/** A browser on the consenting mock: alice approves, and the redirect reaches the loopback. */
const consent = async (url: string) => {
  await fetch((await redirectAfterConsent(url))!);
};

/** A transport that must not be used: what was sent to it, for a test to find empty. */
function sendingNothing(): { seen: string[]; send: SendFn } {
  const seen: string[] = [];
  const send: SendFn = (request) => {
    seen.push(request.url);
    return Promise.reject(new Error('nothing may be sent'));
  };
  return { seen, send };
}

describe('programmatic client (export `dasvc`)', () => {
  it("refuses bad login options before anything is sent, naming the option and the CLI's flag", async () => {
    const { seen, send } = sendingNothing();
    const configDir = mkdtempSync(join(tmpdir(), 'dasvc-api-'));
    try {
      const client = dasvc({ ...settings(), configDir, send });
      const cases: [object, RegExp][] = [
        [{ port: 99_999 }, /^port \(--port\) must be a whole number from 0 to 65535, got 99999$/],
        [{ port: 1.5 }, /^port \(--port\) must be/],
        [
          { timeoutMs: Number.NaN },
          /^timeoutMs \(--timeout\) must be above 0 and at most 24 days, got NaN$/,
        ],
        // Past what Node's timers hold, a wait would end at once.
        [{ timeoutMs: 2 ** 31 }, /^timeoutMs \(--timeout\) must be above 0 and at most 24 days/],
        [{ refreshMargin: -5 }, /^refreshMargin \(--refresh-margin\) must be seconds from 0/],
        [{ refreshMargin: 1e12 }, /^refreshMargin \(--refresh-margin\) must be seconds from 0/],
      ];
      for (const [options, message] of cases) {
        const error = await client
          .login({ openBrowser: approve, ...options })
          .catch((e: unknown) => e);
        expect(error, JSON.stringify(options)).toMatchObject({
          kind: 'usage',
          exitCode: ExitCode.usage,
          message: expect.stringMatching(message),
        });
      }
      expect(seen).toEqual([]);
      // Nothing was written either: the file, had it been, would hold every profile.
      expect(existsSync(join(configDir, 'config.json'))).toBe(false);
    } finally {
      rmSync(configDir, { recursive: true, force: true });
    }
  });

  it('logs in, calls, refreshes and revokes with the CLI code paths', async () => {
    const client = dasvc({ ...settings(), store: 'memory' });
    const { tokens } = await client.login({ openBrowser: approve });
    const contacts = await client.rpc<{ id: number }[]>('crm', 'contacts.list');
    expect(contacts.map((c) => c.id)).toEqual([3, 4]);
    await expect(client.rpc('crm', 'contacts.get', { id: 1 })).rejects.toBeInstanceOf(ServiceError);
    const next = await client.refresh();
    expect(next.accessToken).not.toBe(tokens.accessToken);
    expect(await client.accessToken()).toBe(next.accessToken);
    const { revoked } = await client.revoke({ hint: 'refresh_token' });
    expect(revoked.refresh_token?.body).toEqual({ result: 'Token revoked' });
    // The service refuses the revoked pair's access token; the client forgot both.
    await expect(
      dasvc({ ...settings(), store: 'memory', token: next.accessToken }).rpc(
        'crm',
        'contacts.list',
      ),
    ).rejects.toMatchObject({ kind: 'auth', status: 401 });
    await expect(client.rpc('crm', 'contacts.list')).rejects.toMatchObject({
      kind: 'auth',
      code: 'not_logged_in',
    });
  });
});

describe('a refresh whose new pair cannot be stored', () => {
  it('the call goes on with the pair and says the next needs a login; token refresh fails', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'dasvc-api-'));
    const file = join(configDir, 'config.json');
    const http = createHttpClient({ env: {} });
    // The config file becomes a folder while the refresh is on its way: its answer cannot be kept.
    let breakStore = false;
    const send: SendFn = async (request) => {
      if (breakStore && new URL(request.url).pathname.endsWith('/refresh_token')) {
        rmSync(file);
        mkdirSync(join(file, 'in-the-way'), { recursive: true });
      }
      return http(request);
    };
    const told: string[] = [];
    const tell = (message: string) => void told.push(message);
    try {
      const client = dasvc({ ...settings(), configDir, send, tell });
      await client.login({ openBrowser: approve, insecureStorage: true });
      const due = (): void => {
        const config = JSON.parse(readFileSync(file, 'utf8'));
        config.profiles.default.tokens.expiresAt = Date.now() + 1000;
        writeFileSync(file, JSON.stringify(config), { mode: 0o600 });
      };
      due();
      breakStore = true;
      const contacts = await client.rpc<{ id: number }[]>('crm', 'contacts.list');
      expect(contacts.map((c) => c.id)).toEqual([3, 4]);
      expect(told.join('\n')).toMatch(
        /the new tokens of profile default could not be stored \(.*\); this command uses them, the next one needs dasvc login/,
      );
      // A refresh asked for itself is what could not be kept: it fails as the store did.
      rmSync(file, { recursive: true });
      await client.login({ openBrowser: approve, insecureStorage: true });
      const refused = await client.refresh().catch((e: unknown) => e);
      expect(refused).toMatchObject({ kind: 'usage', code: 'config_unwritable' });
    } finally {
      rmSync(configDir, { recursive: true, force: true });
    }
  });
});

describe('a refresh interrupted while its new pair is stored', () => {
  it('ends the call as interrupted, not as a pair left unsaved', async () => {
    const minted = await fetch(`${mock.url}/_mock/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: 'bob', scope: 'crm' }),
    });
    const pair = (await minted.json()) as { access_token: string; refresh_token: string };
    const inner = memoryTokenStore();
    await inner.replace('default', {
      accessToken: pair.access_token,
      refreshToken: pair.refresh_token,
      expiresAt: Date.now() + 1000,
      obtainedAt: Date.now(),
    });
    // Ctrl-C arrives while the rotated pair is being written.
    const tokens: TokenStore = {
      load: (profile) => inner.load(profile),
      replace: (profile, stored) => inner.replace(profile, stored),
      update: (profile, fn) =>
        inner.update(profile, (stored) =>
          fn(stored, () => Promise.reject(new InterruptedError('interrupted'))),
        ),
    };
    const told: string[] = [];
    const client = new Client(settings(), {
      env: {},
      send: createHttpClient({ env: {} }),
      now: Date.now,
      profiles: undefined,
      tokens,
      openBrowser: async () => undefined,
      tell: (message) => void told.push(message),
    });
    const error = await client.rpc('crm', 'contacts.list').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InterruptedError);
    expect(told.join('\n')).not.toContain('could not be stored');
  });
});

describe('programmatic client calls (SPEC §1)', () => {
  it('a method or params JSON-RPC does not allow are a usage error, before any request', async () => {
    const send = vi.fn<SendFn>();
    const client = dasvc({ ...settings(), store: 'memory', token: 'T', send });
    for (const [method, params] of [
      ['contacts.list', 'notjson'],
      ['contacts.get', 1],
      ['', {}],
      [42, {}],
    ] as [string, unknown][]) {
      await expect(client.rpc('crm', method, params)).rejects.toMatchObject({
        kind: 'usage',
        exitCode: 2,
        code: 'bad_params',
      });
    }
    await expect(
      client.batch('crm', [{ method: 'contacts.list', params: 'x' as unknown as object }]),
    ).rejects.toMatchObject({ kind: 'usage' });
    expect(send).not.toHaveBeenCalled();
  });
});

describe('programmatic client status() (SPEC §1, like token status)', () => {
  it('shows the settings in use, with store: memory too, and no token', async () => {
    const client = dasvc({ ...settings(), store: 'memory' });
    const before = await client.status();
    expect(before).toMatchObject({ loggedIn: false, baseUrl: mock.url, scope: 'crm' });
    const { tokens } = await client.login({ openBrowser: approve });
    const after = await client.status();
    expect(after).toMatchObject({
      profile: 'default',
      loggedIn: true,
      usable: true,
      baseUrl: mock.url,
      clientId: 'demo-client',
      scope: 'crm',
      storage: 'memory',
    });
    expect(JSON.stringify(after)).not.toContain(tokens.accessToken);
    expect(JSON.stringify(after)).not.toContain('demo-secret');
  });
});

describe('dasvc() from JavaScript, with no types to catch a slip', () => {
  it('a misspelt option is a usage error, not a silent fall back to the variable', () => {
    const env = { DASVC_BASE_URL: 'http://127.0.0.1:9' };
    expect(() => dasvc({ baseURL: 'http://127.0.0.1:1', env } as never)).toThrow(
      expect.objectContaining({
        kind: 'usage',
        message: 'dasvc(): unknown option "baseURL" (did you mean baseUrl?)',
      }),
    );
    for (const [options, message] of [
      [null, /^dasvc\(\): its options must be an object, got null$/],
      [{ tell: 'x' }, /option tell must be a function, got "x"$/],
      [{ configDir: 5 }, /option configDir must be a string, got 5$/],
      // A setting that is no string is shown as options are; a secret's by its type alone.
      [{ baseUrl: 5 }, /option baseUrl\) must be a string, got 5$/],
      [{ clientSecret: 7 }, /option clientSecret\) must be a string, got a number$/],
      [{ token: [1] }, /option token\) must be a string, got an array$/],
      [{ send: {} }, /option send must be a function/],
      // Said, whatever the value: a BigInt is no JSON, and no TypeError either.
      [{ store: 1n }, /^store must be "file" or "memory", got a bigint$/],
      [{ maxResponseBytes: 1n }, /^maxResponseBytes must be .* above 0, got a bigint$/],
      [{ maxResponseBytes: 0 }, /^maxResponseBytes must be .* above 0, got 0$/],
    ] as const)
      expect(() => dasvc(options as never)).toThrow(
        expect.objectContaining({ kind: 'usage', message: expect.stringMatching(message) }),
      );
  });
});

describe('a client shown by console.log or JSON.stringify', () => {
  it('shows the settings it was given, never a secret nor what it holds', () => {
    const client = dasvc({
      ...settings(),
      clientSecret: 'S3CRET-XYZ',
      token: 'TOKEN-ABC-123',
      store: 'memory',
      env: {
        DASVC_API_URL: 'http://127.0.0.1:9/x/{scope}?access_token=QUERY-SECRET',
        HOME: '/home/someone',
      },
    });
    const shown = [inspect(client, { depth: 10, showHidden: true }), JSON.stringify(client)];
    for (const text of shown) {
      expect(text).not.toMatch(/S3CRET-XYZ|TOKEN-ABC-123|QUERY-SECRET|home\/someone/);
      expect(text).toContain('http://127.0.0.1:9/x/{scope}?access_token=[redacted]');
    }
    expect(shown[0]).toMatch(/^DasvcClient \{\n {2}baseUrl: /);
    expect(JSON.parse(shown[1]!)).toEqual({
      baseUrl: settings().baseUrl,
      clientId: settings().clientId,
      scope: settings().scope,
      apiUrl: 'http://127.0.0.1:9/x/{scope}?access_token=[redacted]',
    });
  });
});

describe("the client's methods from JavaScript", () => {
  it('refuse what no typed caller could pass, as usage errors, sending nothing', async () => {
    const { seen, send } = sendingNothing();
    const client = dasvc({ ...settings(), token: 'a-token', send, store: 'memory' });
    const holed = new Array<{ method: string }>(2);
    holed[1] = { method: 'contacts.list' };
    const cases: [() => Promise<unknown>, RegExp][] = [
      [
        () => client.revoke({ token: 5 as never }),
        /option token\) must be a string, got a number$/,
      ],
      [() => client.revoke({ token: 'a b' }), /option token\) has a space/],
      [() => client.revoke(null as never), /^revoke\(\): its options must be an object/],
      [() => client.revoke({ all: 'x' as never }), /^revoke\(\): option all must be a boolean/],
      [() => client.logout({ forget: 'x' as never }), /^logout\(\): option forget must be a/],
      [() => client.login(null as never), /^login\(\): its options must be an object/],
      [
        () => client.login({ openBrowser: 'firefox' as never }),
        /^login\(\): option openBrowser must be a boolean or a function, got "firefox"$/,
      ],
      [() => client.login({ port: 10n as never }), /^port \(--port\) must be .*, got a bigint$/],
      [() => client.login({ timeoutMs: Symbol() as never }), /^timeoutMs \(--timeout\) must be/],
      [
        () => client.rpc(undefined as never, 'contacts.list'),
        /^scope must be one instance ID.*: undefined$/,
      ],
      [() => client.rpc(['crm'] as never, 'contacts.list'), /^scope must be .*: an array$/],
      [
        () => client.batch('crm', [null] as never),
        /^batch: call 1 must be an object with a method \(and a boolean notify\)$/,
      ],
      // A hole is a call too: none is skipped (results would no longer line up with calls).
      [() => client.batch('crm', holed), /^batch: call 1 must be/],
      [
        () => client.batch('crm', [{ method: 'contacts.list', notify: 'yes' as never }]),
        /^batch: call 1 must be/,
      ],
      [
        () => client.login({ pasted: {} as never }),
        /^login\(\): option pasted must be an async iterable of lines, got an object$/,
      ],
    ];
    for (const [call, message] of cases) {
      const error = await call().catch((e: unknown) => e);
      expect(error, String(message)).toMatchObject({
        kind: 'usage',
        message: expect.stringMatching(message),
      });
    }
    expect(seen).toEqual([]);
  });

  it('refuse a scope that names no instance before asking for a session, logged in or not', async () => {
    const { seen, send } = sendingNothing();
    const none = dasvc({ ...settings(), send, store: 'memory', env: {} });
    for (const scope of ['../x', 'a b', 5, '..']) {
      for (const call of [
        () => none.rpc(scope as never, 'contacts.list'),
        () => none.batch(scope as never, [{ method: 'contacts.list' }]),
      ]) {
        const error = await call().catch((e: unknown) => e);
        expect(error, String(scope)).toMatchObject({ kind: 'usage', code: 'bad_scope' });
      }
    }
    expect(seen).toEqual([]);
  });
});

/**
 * Runs `test` with a mock of its own and a client logged in to it with a config folder of its
 * own (`on`: the options that name both), as another process would be; cleans both up.
 */
async function loggedInElsewhere(
  test: (
    own: MockServer,
    on: ReturnType<typeof settings> & { configDir: string },
    elsewhere: DasvcClient,
  ) => Promise<void>,
): Promise<void> {
  const own = await startMockServer({ port: 0, autoApprove: 'bob', log: () => undefined });
  const configDir = mkdtempSync(join(tmpdir(), 'dasvc-api-'));
  try {
    const on = { ...settings(), baseUrl: own.url, configDir };
    const elsewhere = dasvc(on);
    await elsewhere.login({ openBrowser: approve });
    await test(own, on, elsewhere);
  } finally {
    rmSync(configDir, { recursive: true, force: true });
    await own.close();
  }
}

describe('programmatic client logout (SPEC §1, §3)', () => {
  it.each(['logout', 'revoke all'] as const)(
    '%s: a pair that a refresh elsewhere stored meanwhile is revoked too',
    (how) =>
      loggedInElsewhere(async (own, on, elsewhere) => {
        // Another process refreshes just as the pair it read is revoked.
        const transport = createHttpClient({ env: {} });
        let newer: { accessToken: string; refreshToken: string | null } | undefined;
        const revoked: (string | null)[] = [];
        const send: SendFn = async (request) => {
          if (request.url.includes('/revoke')) {
            newer ??= await elsewhere.refresh();
            revoked.push(new URL(request.url).searchParams.get('token'));
          }
          return transport(request);
        };
        const client = dasvc({ ...on, send });
        if (how === 'logout')
          expect(await client.logout()).toMatchObject({ loggedIn: true, forgotten: true });
        else await client.revoke({ all: true });
        // Both tokens of the newer pair were revoked, not its refresh token alone.
        expect(revoked.slice(2)).toEqual([newer!.accessToken, newer!.refreshToken]);
        const { grants } = (await (await fetch(`${own.url}/_mock/grants`)).json()) as {
          grants: unknown[];
        };
        expect(grants).toEqual([]);
        expect(await elsewhere.status()).toMatchObject({ loggedIn: false });
      }),
  );

  it('logout --forget: a newer pair that cannot be revoked is forgotten, and the outcome says so', () =>
    loggedInElsewhere(async (_own, on, elsewhere) => {
      const transport = createHttpClient({ env: {} });
      let revokes = 0;
      // The first revocation races a refresh; the newer pair's find the service gone.
      const send: SendFn = async (request) => {
        if (request.url.includes('/revoke')) {
          revokes += 1;
          if (revokes === 1) await elsewhere.refresh();
          if (revokes > 2) throw new NetworkError('the service went away', { code: 'dropped' });
        }
        return transport(request);
      };
      const outcome = await dasvc({ ...on, send }).logout({ forget: true });
      expect(outcome.forgotten).toBe(true);
      expect(outcome.failures).toEqual([
        { kind: 'all', error: expect.objectContaining({ code: 'dropped' }) },
      ]);
      expect(await elsewhere.status()).toMatchObject({ loggedIn: false });
    }));

  it('fails with a DasvcError and keeps the tokens when revoking fails; forget: true forgets them', async () => {
    const client = dasvc({
      ...settings(),
      // Nothing listens on port 1: the revocation cannot reach the service.
      revokeUrl: 'http://127.0.0.1:1/webservice/authorize/revoke',
      store: 'memory',
    });
    await client.login({ openBrowser: approve });
    const error = await client.logout().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ kind: 'network', exitCode: ExitCode.network });
    expect((error as Error).message).toMatch(/they are kept/);
    expect(await client.status()).toMatchObject({ loggedIn: true, usable: true });
    const forced = await client.logout({ forget: true });
    expect(forced).toMatchObject({ forgotten: true, revoked: { access_token: false } });
    expect(forced.failures.length).toBeGreaterThan(0);
    expect(await client.status()).toMatchObject({ loggedIn: false });
  });
});

describe('programmatic client login without a tell callback', () => {
  it('prints nothing (SPEC §1) and still completes', async () => {
    const client = dasvc({ ...settings(), baseUrl: consenting.url, store: 'memory' });
    const written: string[] = [];
    const spies = [process.stderr, process.stdout].map((stream) =>
      vi.spyOn(stream, 'write').mockImplementation((chunk) => {
        written.push(String(chunk));
        return true;
      }),
    );
    let url = '';
    try {
      const { tokens } = await client.login({
        openBrowser: async (u) => {
          url = u;
          await consent(u);
        },
      });
      expect(tokens.accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(url).toContain('/webservice/authorize/?response_type=code');
    expect(written.join('')).toBe('');
  });

  it('openBrowser: true opens the system browser (BROWSER), as the default does', async () => {
    const client = dasvc({
      ...settings(),
      baseUrl: consenting.url,
      env: browserEnv(),
      store: 'memory',
    });
    const { tokens } = await client.login({ openBrowser: true, timeoutMs: 20_000 });
    expect(tokens.accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('openBrowser: false opens none: the URL goes to tell', async () => {
    // The client dasvc() builds, with an opener of its own as the CLI gives one: the opener the
    // login would start when the call gives none. It would be called a microtask after the URL is
    // told, before the approval below has made its first request, so that an empty list once the
    // login is done means none was started, and nothing said about one.
    const opened: string[] = [];
    const told: string[] = [];
    const client = new Client(
      { ...settings(), baseUrl: consenting.url },
      {
        env: {},
        send: createHttpClient({ env: {} }),
        now: Date.now,
        profiles: undefined,
        tokens: memoryTokenStore(),
        openBrowser: async (url) => void opened.push(url),
        tell: (message) => {
          told.push(message);
          const url = /https?:\/\/\S+\/webservice\/authorize\/\?\S+/.exec(message)?.[0];
          if (url) void consent(url);
        },
      },
    );
    const { tokens } = await client.login({ openBrowser: false, timeoutMs: 20_000 });
    expect(tokens.accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(opened).toEqual([]);
    expect(told.join('\n')).toMatch(/webservice\/authorize\/\?/);
    expect(told.join('\n')).not.toMatch(/browser…|open a browser/);
  });

  it('hands what a person should see to tell', async () => {
    const told: string[] = [];
    const client = dasvc({
      ...settings(),
      baseUrl: consenting.url,
      store: 'memory',
      tell: (m) => told.push(m),
    });
    await client.login({ openBrowser: consent });
    expect(told.join('\n')).toContain('/webservice/authorize/?response_type=code');
  });
});

describe('programmatic client rpc checks the answer against the call (regression: id not checked)', () => {
  const answering =
    (answer: unknown): SendFn =>
    async () => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      text: JSON.stringify(answer),
    });
  const clientWith = (send: SendFn) =>
    dasvc({ baseUrl: 'http://127.0.0.1:1', token: 'token', env: {}, send, store: 'memory' });

  it('rejects an answer whose id is not the call id with NetworkError (exit 4)', async () => {
    const client = clientWith(answering({ jsonrpc: '2.0', result: [1], id: 2 }));
    const error = await client.rpc('crm', 'contacts.list', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).exitCode).toBe(ExitCode.network);
    expect((error as NetworkError).kind).toBe('network');
  });

  it('resolves with result when the id matches the call', async () => {
    const client = clientWith(answering({ jsonrpc: '2.0', result: [1], id: 1 }));
    await expect(client.rpc('crm', 'contacts.list', {})).resolves.toEqual([1]);
  });
});
