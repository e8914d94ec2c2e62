import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { processTokenResponse, readExpiresIn } from '../../src/oauth/token-response.js';
import { describeExpiry, sessionSummary } from '../../src/cli/token-state.js';
import { ProfileStore } from '../../src/store/profile-store.js';

const NOW = Date.UTC(2026, 10, 23);
const YEAR = 365.25 * 86_400;
const answer = (expiresIn: unknown) => ({
  status: 200,
  headers: {},
  text: JSON.stringify({ access_token: 'a', refresh_token: 'r', expires_in: expiresIn }),
});

describe('expires_in is bounded', () => {
  it('regression: an expires_in beyond 100 years is unknown, and said', () => {
    for (const value of ['1e300', 1e13, 1e300, 100 * YEAR + 1, String(101 * YEAR), 'Infinity']) {
      const notes: string[] = [];
      const tokens = processTokenResponse(answer(value), NOW, 'token request', null, (n) =>
        notes.push(n),
      );
      expect(tokens.expiresAt, String(value)).toBeNull();
      expect(notes, String(value)).toHaveLength(1);
      expect(notes[0]).toMatch(/expires_in .* beyond 100 years.*unknown/);
      // What login and token status print next must not throw (it was RangeError: Invalid time value).
      expect(describeExpiry(tokens, NOW)).toBe('expiry unknown');
      expect(sessionSummary('default', { scope: 'crm' }, tokens, NOW)).toMatch(/expiry unknown/);
    }
  });

  it('keeps every expires_in up to 100 years, and says nothing about it', () => {
    for (const value of [0, '3600', 3600.5, 99 * YEAR, String(100 * YEAR)]) {
      const notes: string[] = [];
      const tokens = processTokenResponse(answer(value), NOW, 'token request', null, (n) =>
        notes.push(n),
      );
      expect(tokens.expiresAt).toBe(NOW + Math.round(Number(value) * 1000));
      expect(notes).toEqual([]);
      expect(() => new Date(tokens.expiresAt!).toISOString()).not.toThrow();
    }
    expect(readExpiresIn(-1)).toBeNull();
    expect(readExpiresIn(undefined)).toBeNull();
  });
});

describe('stored times are validated', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dasvc-times-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('regression: a time out of range is a corrupt config (exit 2), and the file is left untouched', () => {
    const file = join(dir, 'config.json');
    const store = new ProfileStore(file);
    const tokens = (times: Record<string, unknown>) =>
      JSON.stringify({
        profiles: {
          default: { tokens: { accessToken: 'a', refreshToken: 'r', ...times } },
        },
      });
    for (const text of [
      tokens({ expiresAt: 1e308, obtainedAt: NOW }),
      tokens({ expiresAt: -1, obtainedAt: NOW }),
      tokens({ expiresAt: NOW, obtainedAt: 8.64e15 + 1 }),
      tokens({ expiresAt: NOW, obtainedAt: -5 }),
      tokens({ expiresAt: null, obtainedAt: 1e300 }),
      JSON.stringify({ profiles: { default: { refreshMargin: 1e308 } } }),
    ]) {
      writeFileSync(file, text);
      let caught: unknown;
      try {
        store.read();
      } catch (error) {
        caught = error;
      }
      expect(caught, text).toBeInstanceOf(UsageError);
      expect(caught).toMatchObject({ code: 'config_corrupt', exitCode: 2 });
      expect((caught as Error).message).toMatch(/out of range/);
      expect(readFileSync(file, 'utf8')).toBe(text);
    }
    writeFileSync(file, tokens({ expiresAt: NOW + 100 * YEAR * 1000, obtainedAt: NOW }));
    expect(store.read().profiles?.default?.tokens?.expiresAt).toBe(NOW + 100 * YEAR * 1000);
  });

  // Regression: a number where a string belongs was said to be "out of range".
  it('a number in a field that holds text is of the wrong type', () => {
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ profiles: { a: { baseUrl: 5 } } }));
    expect(() => new ProfileStore(file).read()).toThrow(
      `config file ${file} is corrupt: /profiles/a/baseUrl: must be a string, not 5; fix or remove it`,
    );
  });
});
