import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuthError, UsageError } from '../../src/errors.js';
import type { HttpRequest, HttpResponse } from '../../src/http/types.js';
import { activeProfileName, ProfileStore } from '../../src/store/profile-store.js';
import {
  currentTokens,
  forgetTokens,
  usableAccessToken,
  type SessionDeps,
} from '../../src/client/session.js';
import { hintFor } from '../../src/cli/hints/hint-for.js';
import { fileTokenStore, tokenFingerprint } from '../../src/store/token-store.js';
import { scratchDir } from '../helpers/scratch.js';

const NOW = 1_000_000_000;
function storeWith(tokens: Record<string, unknown>): ProfileStore {
  const dir = scratchDir('dasvc-unit-');
  const file = join(dir, 'config.json');
  writeFileSync(
    file,
    JSON.stringify({ keep: 'me', profiles: { default: { clientId: 'c', tokens } } }),
  );
  return new ProfileStore(file);
}
/** A store holding the pair A / R, obtained and expiring at the given times. */
function storeWithPair(obtainedAt: number, expiresAt: number): ProfileStore {
  return storeWith({ accessToken: 'A', refreshToken: 'R', obtainedAt, expiresAt });
}
const invalidGrant: HttpResponse = { status: 400, headers: {}, text: '{"error":"invalid_grant"}' };
const ok = (body: unknown): HttpResponse => ({
  status: 200,
  headers: {},
  text: JSON.stringify(body),
});
function deps(store: ProfileStore, send: (r: HttpRequest) => Promise<HttpResponse>): SessionDeps {
  return {
    tokens: fileTokenStore(store),
    profile: 'default',
    send,
    now: () => NOW,
    refreshSettings: () => ({
      client: { clientId: 'c', clientSecret: 's' },
      refreshUrl: 'http://h/refresh',
      placement: 'query',
      ownSession: true,
    }),
  };
}

describe('currentTokens', () => {
  it('stores an expires_in beyond 100 years as unknown and says so', async () => {
    const store = storeWithPair(NOW - 3_570_000, NOW + 30_000);
    const told: string[] = [];
    const result = await currentTokens({
      ...deps(store, async () =>
        ok({ access_token: 'A2', expires_in: '1e300', refresh_token: 'R2' }),
      ),
      tell: (message) => told.push(message),
    });
    expect(result).toMatchObject({
      refreshed: true,
      tokens: { accessToken: 'A2', expiresAt: null },
    });
    expect(told.join('\n')).toMatch(/expires_in/);
  });

  it('an access token refused with no refresh token left is recorded as refused', async () => {
    // Another process may have dropped the refresh token since the refused call was sent.
    const store = storeWith({
      accessToken: 'A',
      refreshToken: null,
      obtainedAt: NOW,
      expiresAt: NOW + 3_600_000,
    });
    const session = deps(store, () => Promise.reject(new Error('no request expected')));
    await expect(currentTokens(session, { rejected: 'A' })).rejects.toBeInstanceOf(AuthError);
    const tokens = JSON.parse(readFileSync(store.file, 'utf8')).profiles.default.tokens;
    expect(tokens).toMatchObject({ accessToken: null, accessEnded: 'refused' });
    // Refused now: a later call does not send it again.
    await expect(currentTokens(session)).rejects.toBeInstanceOf(AuthError);
  });

  it('uses the stored token while it is outside the margin', async () => {
    const store = storeWithPair(NOW, NOW + 3_600_000);
    const result = await currentTokens(
      deps(store, () => Promise.reject(new Error('no request expected'))),
    );
    expect(result).toMatchObject({ refreshed: false, tokens: { accessToken: 'A' } });
  });

  it('refreshes inside the margin and writes the file atomically with mode 0600, keeping other members', async () => {
    const store = storeWithPair(NOW - 3_570_000, NOW + 30_000);
    const requests: HttpRequest[] = [];
    const result = await currentTokens(
      deps(store, async (r) => {
        requests.push(r);
        return ok({ access_token: 'A2', refresh_token: 'R2', expires_in: '3600' });
      }),
    );
    expect(result.refreshed).toBe(true);
    expect(new URL(requests[0]!.url).searchParams.get('refresh_token')).toBe('R');
    const data = JSON.parse(readFileSync(store.file, 'utf8'));
    expect(data.keep).toBe('me');
    // The access token it replaced is remembered by fingerprint, never as itself.
    expect(data.profiles.default.tokens).toEqual({
      accessToken: 'A2',
      refreshToken: 'R2',
      obtainedAt: NOW,
      expiresAt: NOW + 3_600_000,
      endedAccess: [{ fingerprint: tokenFingerprint('A'), how: 'replaced', at: NOW }],
    });
    expect(JSON.stringify(data.profiles.default.tokens)).not.toContain('"A"');
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
  });

  it('on invalid_grant re-reads the store: tokens rotated by another process are used', async () => {
    const store = storeWithPair(NOW, NOW + 10_000);
    const result = await currentTokens(
      deps(store, async () => {
        // Another process (not honouring the lock) rotated the pair meanwhile.
        const data = JSON.parse(readFileSync(store.file, 'utf8'));
        data.profiles.default.tokens = {
          accessToken: 'B',
          refreshToken: 'RB',
          obtainedAt: NOW,
          expiresAt: NOW + 3_600_000,
        };
        writeFileSync(store.file, JSON.stringify(data));
        return invalidGrant;
      }),
    );
    expect(result.tokens.accessToken).toBe('B');
  });

  it('after a 401, a store that no longer holds the refused token is used as is (no second refresh)', async () => {
    // Another process refreshed after the same 401 before this one read the store.
    const store = storeWithPair(NOW, NOW + 3_600_000);
    const none = () => Promise.reject(new Error('no request expected'));
    const result = await currentTokens(deps(store, none), { rejected: 'A-before' });
    expect(result).toMatchObject({ refreshed: false, tokens: { accessToken: 'A' } });
    // The stored token itself refused: that one is refreshed.
    const again = await currentTokens(
      deps(store, async () => ok({ access_token: 'A2', refresh_token: 'R2', expires_in: '3600' })),
      { rejected: 'A' },
    );
    expect(again).toMatchObject({ refreshed: true, tokens: { accessToken: 'A2' } });
  });

  it('on invalid_grant with nothing rotated gives up with AuthError and a login hint', async () => {
    const store = storeWithPair(NOW, NOW + 10_000);
    const attempt = currentTokens(deps(store, async () => invalidGrant));
    await expect(attempt).rejects.toBeInstanceOf(AuthError);
    // The hint is the CLI's to make, from the error's code and profile.
    expect(hintFor((await attempt.catch((e: unknown) => e)) as AuthError)).toBe('dasvc login');
  });

  it('is AuthError when not logged in, UsageError when the file is corrupt', async () => {
    const store = storeWith({});
    writeFileSync(store.file, '{"profiles":{}}');
    await expect(
      currentTokens(deps(store, () => Promise.reject(new Error()))),
    ).rejects.toBeInstanceOf(AuthError);
    writeFileSync(store.file, '{oops');
    await expect(
      currentTokens(deps(store, () => Promise.reject(new Error()))),
    ).rejects.toBeInstanceOf(UsageError);
    expect(readFileSync(store.file, 'utf8')).toBe('{oops');
  });
});

describe('usableAccessToken', () => {
  // Regression: only '' read as revoked; a TokenStore of an embedder's own (the interface is
  // public) may hand back any encoding the file ever had.
  it('reads every encoding of a revoked access token as null', () => {
    const base = { refreshToken: 'R', obtainedAt: 1, expiresAt: 2 };
    expect(usableAccessToken({ ...base, accessToken: 'A' })).toBe('A');
    expect(usableAccessToken({ ...base, accessToken: null })).toBeNull();
    expect(usableAccessToken({ ...base, accessToken: '' })).toBeNull();
    expect(usableAccessToken({ ...base, accessToken: 'A', accessRevoked: true })).toBeNull();
  });
});

describe('an access-only revoke', () => {
  const live = { accessToken: 'A', refreshToken: 'R', obtainedAt: NOW, expiresAt: NOW + 3_600_000 };

  it('regression: is recorded as revoked with its expiry kept (it wrote accessToken "" and expiresAt 0)', async () => {
    const store = storeWith(live);
    await forgetTokens(fileTokenStore(store), 'default', 'access', NOW);
    // One encoding of a revoked access token: null (no accessRevoked flag beside it), and why.
    expect(store.profile('default')?.tokens).toEqual({
      ...live,
      accessToken: null,
      accessEnded: 'revoked',
      endedAccess: [{ fingerprint: tokenFingerprint('A'), how: 'revoked', at: NOW }],
    });
  });

  it('reads the older encodings ("" and accessRevoked) as the one: null', async () => {
    // Only a revoke set the flag; an empty string says nothing of why.
    const empty = await fileTokenStore(storeWith({ ...live, accessToken: '' })).load('default');
    expect(empty).toEqual({ ...live, accessToken: null });
    const flag = await fileTokenStore(storeWith({ ...live, accessRevoked: true })).load('default');
    expect(flag).toEqual({ ...live, accessToken: null, accessEnded: 'revoked' });
  });

  it('makes the next use refresh; without a refresh token it is AuthError "revoked"', async () => {
    const store = storeWith(live);
    await forgetTokens(fileTokenStore(store), 'default', 'access');
    const result = await currentTokens(
      deps(store, async () => ok({ access_token: 'A2', refresh_token: 'R2', expires_in: 3600 })),
    );
    expect(result).toMatchObject({ refreshed: true, tokens: { accessToken: 'A2' } });
    expect(store.profile('default')?.tokens).not.toHaveProperty('accessRevoked');
    const bare = storeWith({ ...live, refreshToken: null, accessToken: null, accessRevoked: true });
    await expect(
      currentTokens(deps(bare, () => Promise.reject(new Error('no request expected')))),
    ).rejects.toMatchObject({ code: 'revoked', exitCode: 3 });
  });
});

describe('ProfileStore.read checks the shape (SPEC §2: a corrupt file is a clear error)', () => {
  it('regression: valid JSON of the wrong shape is UsageError config_corrupt naming the file', () => {
    const dir = scratchDir('dasvc-unit-');
    const file = join(dir, 'config.json');
    const store = new ProfileStore(file);
    for (const text of [
      '{"profiles":{"default":{"tokens":"x"}}}',
      '{"profiles":{"default":{"tokens":{"accessToken":"a","refreshToken":1,"expiresAt":1,"obtainedAt":1}}}}',
      '{"profiles":{"default":{"tokens":{"accessToken":"a","refreshToken":null,"expiresAt":"soon","obtainedAt":1}}}}',
      '{"profiles":{"default":{"tokens":{"accessToken":"a","refreshToken":null,"expiresAt":null}}}}',
      '{"profiles":{"default":null}}',
      '{"profiles":{"default":{"endpoints":{"api":3}}}}',
      '{"profiles":{"default":{"params":"header"}}}',
      '{"profiles":"x"}',
      '{"activeProfile":"constructor"}',
      '{"activeProfile":3}',
    ]) {
      writeFileSync(file, text);
      expect(() => store.read(), text).toThrow(UsageError);
      const caught = (() => {
        try {
          return store.read();
        } catch (error) {
          return error;
        }
      })();
      expect(caught).toMatchObject({ code: 'config_corrupt' });
      expect((caught as Error).message).toContain(file);
      expect(readFileSync(file, 'utf8')).toBe(text);
    }
    writeFileSync(file, '{"other":1,"profiles":{"p":{"baseUrl":"http://h","extra":[1]}}}');
    expect(store.read()).toMatchObject({ other: 1 });
  });

  it('regression: profile names from --profile and DASVC_PROFILE are checked', () => {
    for (const name of ['__proto__', 'constructor', 'prototype', 'a/b', '', 'x'.repeat(65)]) {
      expect(() => activeProfileName(name, {}, {}), name).toThrow(UsageError);
      if (name !== '')
        expect(() => activeProfileName(undefined, { DASVC_PROFILE: name }, {})).toThrow(UsageError);
    }
    expect(activeProfileName('work.1_a-b', {}, {})).toBe('work.1_a-b');
    expect(activeProfileName(undefined, {}, {})).toBe('default');
  });
});
