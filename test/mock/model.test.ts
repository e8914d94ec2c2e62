import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createMockApp, type MockApp, type MockOptions } from '../../src/mock/index.js';

/**
 * A model-based test of the mock's grant state machine: random sequences of
 * authorize, exchange (and code reuse), refresh (and reuse of an old refresh token), revoke (both
 * hints, by the owner and by another client), clock advance and restart from the state file
 * (after a close, or abandoned as after kill -9), each checked against a small reference model of
 * SPEC §5; after every step each access token works exactly when the model says it lives.
 * A fixed count from the fixed seed (test/helpers/fast-check-seed.ts); a failure prints the seed
 * and the shrunk sequence.
 */

const CODE_TTL = 60;
const ACCESS_TTL = 100;
const REFRESH_TTL = 1000;
const CLIENTS = {
  'demo-client': 'demo-secret',
  'other-client': 'other-secret',
} as const;
type Client = keyof typeof CLIENTS;
const REDIRECT = 'http://127.0.0.1:9/callback';
const BASE = 'http://mock.test';

interface ModelGrant {
  client: Client;
  access?: string;
  accessExp: number;
  refresh?: string;
  refreshExp: number;
  ended: boolean;
  /** Every access token issued to it, the live one last. */
  issued: string[];
}
/** SPEC §5 in miniature; times are seconds of the virtual clock's offset. */
interface Model {
  now: number;
  codes: { code: string; client: Client; exp: number; grant?: number }[];
  grants: ModelGrant[];
  old: { token: string; grant: number; exp: number }[];
}
interface Real {
  app: MockApp;
  options: MockOptions;
}

const runs = mkdtempSync(join(tmpdir(), 'dasvc-model-'));
afterAll(() => rmSync(runs, { recursive: true, force: true }));

async function send(real: Real, method: string, path: string, form?: Record<string, string>) {
  const response = await real.app(
    new Request(`${BASE}${path}`, {
      method,
      redirect: 'manual',
      ...(form
        ? {
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams(form).toString(),
          }
        : {}),
    }),
  );
  const text = await response.text();
  let json: Record<string, string> = {};
  try {
    json = JSON.parse(text) as Record<string, string>;
  } catch {
    // pages and redirects
  }
  return { status: response.status, json, location: response.headers.get('location') };
}

const credentials = (client: Client) => ({ client_id: client, client_secret: CLIENTS[client] });
const accessLives = (m: Model, g: ModelGrant) =>
  !g.ended && g.access !== undefined && g.accessExp > m.now;
const refreshLives = (m: Model, g: ModelGrant) =>
  !g.ended && g.refresh !== undefined && g.refreshExp > m.now;
function end(g: ModelGrant): void {
  g.ended = true;
  delete g.access;
  delete g.refresh;
}
function newPair(m: Model, g: ModelGrant, body: Record<string, string>): void {
  expect(body.access_token).toEqual(expect.any(String));
  expect(body.expires_in).toBe(String(ACCESS_TTL));
  g.access = body.access_token;
  g.issued.push(body.access_token!);
  g.refresh = body.refresh_token;
  g.accessExp = m.now + ACCESS_TTL;
  // SERVICE.md 4.3: a refresh token is usable only while its access token is unexpired.
  g.refreshExp = Math.min(m.now + REFRESH_TTL, g.accessExp);
}

/** After every step: each access token the model knows works exactly when it should. */
async function checkAccess(m: Model, r: Real): Promise<void> {
  for (const [i, g] of m.grants.entries()) {
    for (const token of g.issued) {
      const res = await r.app(
        new Request(`${BASE}/webservice/json/crm`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: '{"jsonrpc":"2.0","method":"contacts.list","id":1}',
        }),
      );
      await res.arrayBuffer();
      const lives = token === g.access && accessLives(m, g);
      expect(res.status, `grant ${i}'s access token at +${m.now}s`).toBe(lives ? 200 : 401);
    }
  }
}

type Step = fc.AsyncCommand<Model, Real>;

/** GET the authorization endpoint (auto-approved as alice): a code bound to the client. */
class Authorize implements Step {
  constructor(readonly client: Client) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: this.client,
      redirect_uri: REDIRECT,
      scope: 'crm',
      state: 's',
    });
    const res = await send(r, 'GET', `/webservice/authorize/?${query}`);
    expect(res.status).toBe(302);
    const code = new URL(res.location!).searchParams.get('code')!;
    expect(code).toEqual(expect.any(String));
    m.codes.push({ code, client: this.client, exp: m.now + CODE_TTL });
    await checkAccess(m, r);
  }
  toString = () => `authorize(${this.client})`;
}

/** Exchange a code (SERVICE.md 4.2): single use; a second use, even once expired, ends what it issued. */
class Exchange implements Step {
  constructor(
    readonly pick: number,
    readonly client: Client,
  ) {}
  check = (m: Readonly<Model>) => m.codes.length > 0;
  async run(m: Model, r: Real) {
    const c = m.codes[this.pick % m.codes.length]!;
    const res = await send(r, 'POST', '/webservice/authorize', {
      grant_type: 'authorization_code',
      code: c.code,
      redirect_uri: REDIRECT,
      ...credentials(this.client),
    });
    if (c.grant !== undefined) {
      // A second use, however late and by whichever client (SPEC §5): refused, and what the code
      // issued ends.
      expect(res.status).toBe(400);
      expect(res.json.error).toBe('invalid_grant');
      end(m.grants[c.grant]!);
    } else if (c.client !== this.client) {
      expect(res.status).toBe(400);
      expect(res.json.error).toBe('invalid_grant');
    } else if (c.exp <= m.now) {
      expect(res.status).toBe(400);
      expect(res.json.error).toBe('invalid_grant');
    } else {
      expect(res.status).toBe(200);
      const g: ModelGrant = {
        client: c.client,
        accessExp: 0,
        refreshExp: 0,
        ended: false,
        issued: [],
      };
      newPair(m, g, res.json);
      c.grant = m.grants.push(g) - 1;
    }
    await checkAccess(m, r);
  }
  toString = () => `exchange(code #${this.pick}, ${this.client})`;
}

/** Refresh (SERVICE.md 4.3) with the grant's refresh token, or with one already used. */
class Refresh implements Step {
  constructor(
    readonly pick: number,
    readonly client: Client,
    readonly useOld: boolean,
  ) {}
  check = (m: Readonly<Model>) =>
    this.useOld ? m.old.length > 0 : m.grants.some((g) => g.refresh);
  async run(m: Model, r: Real) {
    let token: string;
    let gi: number;
    let rotated: { exp: number } | undefined;
    if (this.useOld) {
      const o = m.old[this.pick % m.old.length]!;
      [token, gi, rotated] = [o.token, o.grant, o];
    } else {
      const live = m.grants.flatMap((g, i) => (g.refresh ? [i] : []));
      gi = live[this.pick % live.length]!;
      token = m.grants[gi]!.refresh!;
    }
    const g = m.grants[gi]!;
    const res = await send(r, 'POST', '/webservice/authorize/refresh_token', {
      grant_type: 'refresh_token',
      refresh_token: token,
      ...credentials(this.client),
    });
    const lives = rotated ? !g.ended && rotated.exp > m.now : refreshLives(m, g);
    if (!lives || g.client !== this.client) {
      expect(res.status).toBe(400);
      expect(res.json.error).toBe('invalid_grant');
    } else if (rotated) {
      // Reuse of a rotated refresh token: refused; the grant's pair lives on.
      expect(res.status).toBe(400);
      expect(res.json.error).toBe('invalid_grant');
    } else {
      expect(res.status).toBe(200);
      m.old.push({ token, grant: gi, exp: g.refreshExp });
      newPair(m, g, res.json);
    }
    await checkAccess(m, r);
  }
  toString = () => `refresh(${this.useOld ? 'old' : 'current'} #${this.pick}, ${this.client})`;
}

/** Revoke (RFC 7009, SPEC §5) an access, refresh or rotated token, with either hint, by either client. */
class Revoke implements Step {
  constructor(
    readonly pick: number,
    readonly which: 'access' | 'refresh' | 'old',
    readonly hint: 'access_token' | 'refresh_token',
    readonly client: Client,
  ) {}
  check = (m: Readonly<Model>) => m.grants.length > 0 && (this.which !== 'old' || m.old.length > 0);
  async run(m: Model, r: Real) {
    let token: string | undefined;
    let gi: number;
    if (this.which === 'old') {
      const o = m.old[this.pick % m.old.length]!;
      [token, gi] = [o.token, o.grant];
    } else {
      gi = this.pick % m.grants.length;
      const g = m.grants[gi]!;
      token = this.which === 'access' ? (g.access ?? g.issued.at(-1)) : g.refresh;
    }
    const g = m.grants[gi]!;
    token ??= 'never-issued';
    const res = await send(r, 'POST', '/webservice/authorize/revoke', {
      token,
      token_type_hint: this.hint,
      ...credentials(this.client),
    });
    const live =
      (token === g.access && accessLives(m, g)) || (token === g.refresh && refreshLives(m, g));
    if (live && g.client !== this.client) {
      // Another client's token: refused, and it stays valid.
      expect(res.status).toBe(400);
      expect(res.json.error).toBe('invalid_grant');
    } else {
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ result: 'Token revoked' });
      if (live && token === g.refresh) end(g);
      else if (live) delete g.access;
    }
    await checkAccess(m, r);
  }
  toString = () => `revoke(${this.which} #${this.pick}, ${this.hint}, ${this.client})`;
}

/** Moves the virtual clock (POST /_mock/clock). */
class Advance implements Step {
  constructor(readonly seconds: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const moved = await r.app(
      new Request(`${BASE}/_mock/clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ advance: this.seconds }),
      }),
    );
    expect(moved.status).toBe(200);
    m.now += this.seconds;
    expect(((await moved.json()) as { offsetSeconds: number }).offsetSeconds).toBe(m.now);
    await checkAccess(m, r);
  }
  toString = () => `advance(${this.seconds}s)`;
}

/** A new mock on the same state file: after a close, or with the old one abandoned (kill -9). */
class Restart implements Step {
  constructor(readonly crash: boolean) {}
  check = () => true;
  async run(m: Model, r: Real) {
    if (!this.crash) await r.app.close();
    r.app = createMockApp(r.options);
    await checkAccess(m, r);
  }
  toString = () => `restart(${this.crash ? 'after kill -9' : 'after close'})`;
}

const client = fc.constantFrom<Client>('demo-client', 'other-client');
const pick = fc.nat(20);
const steps = [
  client.map((c) => new Authorize(c)),
  fc.tuple(pick, client).map(([p, c]) => new Exchange(p, c)),
  pick.map((p) => new Exchange(p, 'demo-client')),
  fc.tuple(pick, client, fc.boolean()).map(([p, c, old]) => new Refresh(p, c, old)),
  fc.tuple(pick, fc.boolean()).map(([p, old]) => new Refresh(p, 'demo-client', old)),
  fc
    .tuple(
      pick,
      fc.constantFrom('access', 'refresh', 'old'),
      fc.constantFrom('access_token', 'refresh_token'),
      client,
    )
    .map(
      ([p, w, h, c]) =>
        new Revoke(p, w as 'access' | 'refresh' | 'old', h as 'access_token' | 'refresh_token', c),
    ),
  fc.constantFrom(1, 30, 59, 61, 99, 101, 500).map((s) => new Advance(s)),
  fc.boolean().map((crash) => new Restart(crash)),
];

describe('the mock against a model of SPEC §5', () => {
  it('every random sequence of grant steps keeps to the model, across restarts', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.commands(steps, { maxCommands: 40, size: 'max' }), async (commands) => {
        const options: MockOptions = {
          autoApprove: 'alice',
          codeTtl: CODE_TTL,
          accessTtl: ACCESS_TTL,
          refreshTtl: REFRESH_TTL,
          stateFile: join(runs, `state-${++run}.json`),
          // A fixed wall clock: only /_mock/clock moves time.
          now: () => Date.UTC(2026, 10, 23),
        };
        const real: Real = { app: createMockApp(options), options };
        try {
          await fc.asyncModelRun(
            () => ({ model: { now: 0, codes: [], grants: [], old: [] }, real }),
            commands,
          );
        } finally {
          await real.app.close();
        }
      }),
      { numRuns: 50 },
    );
    // 50 sequences of up to 40 steps, each on a fresh app: seconds when idle, many times that on
    // a loaded machine; the count is the bound, the timeout only catches a hang.
  }, 120_000);
});
