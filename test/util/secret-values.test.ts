// Secrets whatever their shape (SPEC §6): members named like secrets in any case and as part of a
// longer name, any JSON type, any depth; values remembered once and masked wherever they recur,
// in their common encodings too.
import { describe, expect, it } from 'vitest';
import { NeedleSet } from '../../src/util/needle-set.js';
import {
  isSecretHolder,
  isSecretMember,
  isSecretName,
  REDACTED,
  redactJson,
} from '../../src/util/redact.js';
import { SecretValues } from '../../src/util/secret-values.js';

const R = REDACTED;

describe('names like secrets', () => {
  it('in any case, joined any way, as part of a longer name', () => {
    for (const name of [
      'password',
      'Password',
      'PASSWORD',
      'user_password',
      'newPassword',
      'client_secret',
      'clientSecret',
      'X-Client-Secret',
      'apiToken',
      'access_token',
      'passwd',
      'api_key',
      'private-key',
      'code_verifier',
      'credentials',
    ])
      expect(isSecretMember(name), name).toBe(true);
    for (const name of ['token_type', 'token_type_hint', 'code', 'state', 'id', 'user', 'email'])
      expect(isSecretMember(name), name).toBe(false);
    // In a query or form, the OAuth names are secrets too.
    for (const name of ['code', 'state', 'Code', '?code', 'code_challenge'])
      expect(isSecretName(name), name).toBe(true);
    expect(isSecretName('token_type_hint')).toBe(false);
  });

  it('a member holds the secret itself when the secret word ends its name', () => {
    for (const name of ['user_password', 'clientSecret', 'apiToken', 'PASSWORD', 'secret_key'])
      expect(isSecretHolder(name), name).toBe(true);
    for (const name of ['token_expires_in', 'password_min_length', 'max_tokens', 'token_type'])
      expect(isSecretHolder(name), name).toBe(false);
  });

  it('redactJson masks a secret member of any type but booleans, and keeps error codes', () => {
    expect(
      redactJson({
        password: 12345678,
        Secret: ['a'],
        user_password: { old: 'x' },
        has_password: true,
        error: { code: -32601 },
        code: 'c0de',
      }),
    ).toEqual({
      password: R,
      Secret: R,
      user_password: R,
      has_password: true,
      error: { code: -32601 },
      code: R,
    });
  });
});

describe('SecretValues.mask: members named like secrets', () => {
  it('masks them at any depth whatever the JSON type, the type kept', () => {
    const s = new SecretValues();
    expect(
      s.mask({
        password: 12345678,
        list: [{ Password: ['one-secret', 42.5] }],
        user_password: { old: 'old-secret', new: 'new-secret', flags: [true, null] },
        CLIENT_SECRET: 987654321,
        nested: { deeper: { apiToken: 'tok' } },
        token_type: 'Bearer',
        has_password: true,
        code: 'FR',
      }),
    ).toEqual({
      password: 0,
      list: [{ Password: [R, 0] }],
      user_password: { old: R, new: R, flags: [true, null] },
      CLIENT_SECRET: 0,
      nested: { deeper: { apiToken: R } },
      token_type: 'Bearer',
      has_password: true,
      code: 'FR',
    });
  });
});

describe('SecretValues: a value seen once is masked wherever it recurs', () => {
  it('learns the values of secret members, of any type, and masks them elsewhere', () => {
    const s = new SecretValues();
    s.addMembers({
      login: { user: 'ada', Password: 'hunter2-pw' },
      client_secret: 987654321,
      user_password: { old: 'old-pw-1', new: 'new-pw-2' },
      pins: [{ PASSWORD: ['pin-list-3'] }],
    });
    expect(
      s.mask([
        'ada',
        'hunter2-pw',
        987654321,
        98765432,
        '987654321',
        { note: 'old was old-pw-1, now new-pw-2', again: ['pin-list-3'] },
      ]),
    ).toEqual(['ada', R, 0, 98765432, R, { note: `old was ${R}, now ${R}`, again: [R] }]);
    // A number holding a remembered secret's digits is masked; one that does not is kept.
    expect(s.mask(19876543210)).toBe(0);
    s.addMembers({ pin_secret: -7654321 });
    expect(s.mask([-7654321, 7654321, '7654321'])).toEqual([0, 0, R]);
  });

  it('masks what is about a secret in place, but hunts only the secrets themselves', () => {
    const s = new SecretValues();
    const policy = { token_expires_in: 3600, password_min_length: 128, password: 'pw-secret-1' };
    s.addMembers(policy);
    expect(s.mask(policy)).toEqual({ token_expires_in: 0, password_min_length: 0, password: R });
    expect(s.mask({ ttl: 3600, max: 128, note: '3600 s', echo: 'pw-secret-1' })).toEqual({
      ttl: 3600,
      max: 128,
      note: '3600 s',
      echo: R,
    });
  });

  it('masks the encodings: base64 (also inside longer base64), base64url, URL, hex, JSON', () => {
    const secret = 'p@ss w/rd+"9"é';
    const s = new SecretValues();
    s.add(secret);
    const b64 = Buffer.from(secret).toString('base64');
    const forms = [
      b64,
      b64.replace(/=+$/, ''),
      Buffer.from(secret).toString('base64url'),
      encodeURIComponent(secret),
      encodeURIComponent(secret).replace(/%20/g, '+'),
      Buffer.from(secret).toString('hex'),
      JSON.stringify(secret).slice(1, -1),
    ];
    for (const form of forms) expect(s.maskText(`x ${form} y`), form).toBe(`x ${R} y`);
    // Inside a longer base64 text, whatever the secret's alignment in it.
    for (const prefix of ['', 'a', 'ab', 'user:']) {
      const blob = Buffer.from(`${prefix}${secret} and more`).toString('base64');
      const masked = s.maskText(blob);
      expect(masked, prefix).toContain(R);
      // What is left of the blob decodes to no part of the secret longer than a few bytes.
      for (const part of masked.split(R)) {
        expect(Buffer.from(part, 'base64').toString('latin1')).not.toContain('w/rd');
      }
    }
  });

  it('masks overlapping secrets as one stretch: no part of either is left', () => {
    const s = new SecretValues();
    s.add('abcdef123456');
    s.add('123456xyzxyz');
    expect(s.maskText('..abcdef123456xyzxyz..')).toBe(`..${R}..`);
    expect(s.maskText('abcdef123456abcdef123456')).toBe(R);
  });

  it('counts what it learns: the version grows only with a new secret', () => {
    const s = new SecretValues();
    const before = s.version;
    s.add('a-new-secret');
    const after = s.version;
    expect(after).toBeGreaterThan(before);
    s.add('a-new-secret');
    s.addMembers({ name: 'not a secret' });
    expect(s.version).toBe(after);
  });

  it('learns and masks params nested deeper than any stack', () => {
    let deep: unknown = { password: 'deep-secret-1' };
    for (let i = 0; i < 20_000; i++) deep = [deep];
    const s = new SecretValues();
    s.addMembers(deep);
    expect(s.maskText('deep-secret-1')).toBe(R);
    // Masking cuts what is nested too deep rather than running out of stack.
    expect(JSON.stringify(s.mask(deep))).not.toContain('deep-secret-1');
  });
});

describe('NeedleSet', () => {
  it('finds every needle in one pass, longest first, and merges what overlaps or touches', () => {
    const set = new NeedleSet(4);
    for (const needle of ['abcd', 'abcdef', 'defgh', 'zzzz']) set.add(needle);
    expect(set.replace('xxabcdefghyy', '#')).toBe('xx#yy');
    expect(set.replace('abcdzzzz', '#')).toBe('#');
    expect(set.replace('abc zzz', '#')).toBe('abc zzz');
    expect(set.replace('zzzz abcd', '#')).toBe('# #');
    expect(set.replace('', '#')).toBe('');
  });
});

describe('SecretValues', () => {
  it('a secret with a lone surrogate (no URL form) does not stop the ones after it', () => {
    const s = new SecretValues();
    s.addJson('{"access_token":"abc\\ud800defgh","refresh_token":"tok-refresh-after"}');
    expect(s.maskText('x abc\ud800defgh y tok-refresh-after')).toBe('x [redacted] y [redacted]');
  });

  it('masks every secret it saw, in any string, and secret members by name', () => {
    const s = new SecretValues();
    s.addParams('code=abcdef123&state=st4te-value&client_id=demo-client&client_secret=demo-secret');
    s.addAuthorization(`Basic ${Buffer.from('demo-client:other%2Fsecret').toString('base64')}`);
    s.addJson(
      '{"access_token":"tok-access-1","refresh_token":"tok-refresh-1","expires_in":"3600"}',
    );
    expect(
      s.mask({
        note: 'code abcdef123 and tok-access-1',
        list: ['st4te-value', 'other/secret', 'demo-client'],
        password: 'hunter22',
        ['tok-refresh-1']: 1,
      }),
    ).toEqual({
      note: 'code [redacted] and [redacted]',
      list: ['[redacted]', '[redacted]', 'demo-client'],
      password: '[redacted]',
      '[redacted]': 1,
    });
    expect(s.maskText('demo-secret')).toBe('[redacted]');
  });

  // Regression: secrets under 6 characters were not remembered, and went to DIR in clear.
  it('masks a short secret (3 to 5 characters) where it stands alone, not inside a word', () => {
    const s = new SecretValues();
    s.addParams('client_secret=abc12&code=c0de1&state=xy');
    expect(
      s.mask({ s: 'abc12', c: ['c0de1'], in: 'say abc12', word: 'xabc12y', abc12: 1, st: 'xy' }),
    ).toEqual({
      s: '[redacted]',
      c: ['[redacted]'],
      in: 'say [redacted]',
      word: 'xabc12y',
      abc12: 1,
      st: 'xy',
    });
    // The CLI masks whole bodies and trace lines with it (src/http/request-secrets.ts).
    expect(s.maskText('{"error_description":"bad secret abc12"}')).toBe(
      '{"error_description":"bad secret [redacted]"}',
    );
    expect(s.maskText('client_secret=abc12&code=c0de1')).toBe(
      'client_secret=[redacted]&code=[redacted]',
    );
  });

  // Regression: an OpenRPC example of a by-name param `password` kept its value in clear.
  it('masks the value of an OpenRPC example named like a secret member', () => {
    const params = [
      { name: 'password', value: 'pw1' },
      { name: 'user', value: 'ada' },
    ];
    expect(new SecretValues().maskDocument({ params })).toEqual({
      params: [
        { name: 'password', value: '[redacted]' },
        { name: 'user', value: 'ada' },
      ],
    });
  });
});
