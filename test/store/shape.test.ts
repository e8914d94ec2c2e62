// The config file and the OS credential store's entries are checked by their one schema
// (src/schemas/config-file.schema.json): each problem is told as a JSON pointer and what is wrong
// there, and a file is read as its own message says, naming it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { ProfileStore } from '../../src/store/profile-store.js';
import {
  checkProfileName,
  configFileShape,
  keychainEntryShape,
} from '../../src/store/store-shape.js';
import { MAX_DATE_MS, MAX_DURATION_SECONDS } from '../../src/util/duration.js';
import { scratchDir } from '../helpers/scratch.js';

const tokens = { accessToken: 'a', refreshToken: 'r', expiresAt: null, obtainedAt: 1 };
const withProfile = (profile: unknown) => ({ profiles: { a: profile } });

describe('the config file format', () => {
  it.each([
    [[], 'it must be a JSON object, not an array'],
    [{ activeProfile: 'constructor' }, '/activeProfile: "constructor" is not a profile name'],
    [{ activeProfile: 'a b' }, '/activeProfile: "a b" is not a profile name'],
    [{ activeProfile: 3 }, '/activeProfile: 3 is not a profile name'],
    [{ profiles: 'x' }, '/profiles: must be a JSON object, not "x"'],
    [{ profiles: { a: null } }, '/profiles/a: must be a JSON object, not null'],
    [{ profiles: { 'a/b': { baseUrl: 5 } } }, '/profiles/a~1b/baseUrl: must be a string, not 5'],
    [
      withProfile({ endpoints: { other: 3 } }),
      '/profiles/a/endpoints/other: must be a string, not 3',
    ],
    [
      withProfile({ params: 'header' }),
      '/profiles/a/params: unknown value "header" (allowed: "query", "body")',
    ],
    [
      withProfile({ refreshMargin: 1e308 }),
      '/profiles/a/refreshMargin: 1e+308 is out of range (seconds from 0 to 100 years)',
    ],
    [withProfile({ refreshMargin: '60' }), '/profiles/a/refreshMargin: must be a number, not "60"'],
    [
      withProfile({ secrets: 'disk' }),
      '/profiles/a/secrets: unknown value "disk" (allowed: "keychain", "file")',
    ],
    [withProfile({ tokens: 'x' }), '/profiles/a/tokens: must be a JSON object, not "x"'],
    [
      withProfile({ tokens: { ...tokens, obtainedAt: undefined } }),
      '/profiles/a/tokens: needs "obtainedAt"',
    ],
    [
      withProfile({ tokens: { ...tokens, expiresAt: 'soon' } }),
      '/profiles/a/tokens/expiresAt: must be a number or null, not "soon"',
    ],
    [
      withProfile({ tokens: { ...tokens, expiresAt: -1 } }),
      '/profiles/a/tokens/expiresAt: -1 is out of range (epoch ms from 0 to 8640000000000000)',
    ],
    [
      withProfile({ tokens: { ...tokens, obtainedAt: MAX_DATE_MS + 1 } }),
      '/profiles/a/tokens/obtainedAt: 8640000000000001 is out of range (epoch ms from 0 to 8640000000000000)',
    ],
    [
      withProfile({ tokens: { ...tokens, endedAccess: [{ fingerprint: 'f', how: 'x', at: 1 }] } }),
      '/profiles/a/tokens/endedAccess/0/how: unknown value "x" (allowed: "replaced", "revoked")',
    ],
  ])('%j: %s', (data, problem) => {
    expect(configFileShape(JSON.parse(JSON.stringify(data)))).toEqual({ problem });
  });

  it('takes what dasvc writes, and keeps the members it does not know', () => {
    const data = {
      other: { kept: true },
      activeProfile: 'a.b',
      profiles: {
        'a.b': {
          extra: [1],
          baseUrl: 'http://h',
          endpoints: { api: 'http://h/{scope}', custom: 'x' },
          params: 'body',
          refreshMargin: MAX_DURATION_SECONDS,
          secrets: 'keychain',
          tokens: {
            accessToken: null,
            refreshToken: null,
            expiresAt: MAX_DATE_MS,
            obtainedAt: 0,
            accessEnded: 'refused',
            endedAccess: [{ fingerprint: 'f', how: 'replaced', at: 1 }],
          },
        },
      },
    };
    expect(configFileShape(data)).toEqual({ value: data });
  });

  it('is read as a UsageError naming the file, which stays as it was', () => {
    const file = join(scratchDir('dasvc-shape-'), 'config.json');
    const text = JSON.stringify(withProfile({ baseUrl: 5 }));
    writeFileSync(file, text);
    let caught: unknown;
    try {
      new ProfileStore(file).read();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UsageError);
    expect(caught).toMatchObject({
      code: 'config_corrupt',
      message: `config file ${file} is corrupt: /profiles/a/baseUrl: must be a string, not 5; fix or remove it`,
    });
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('is never written when its next read would refuse it: the file stays as it was', async () => {
    const file = join(scratchDir('dasvc-shape-'), 'config.json');
    const store = new ProfileStore(file);
    await store.update((data) => {
      data.profiles = { a: { baseUrl: 'http://127.0.0.1:1' } };
    });
    const before = readFileSync(file, 'utf8');
    const error = await store
      .update((data) => {
        data.profiles!.b = { baseUrl: 'http://127.0.0.1:2', refreshMargin: -5 };
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      kind: 'usage',
      message: `${file} was not written: it would be invalid (/profiles/b/refreshMargin: -5 is out of range (seconds from 0 to 100 years))`,
    });
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(store.read().profiles?.a?.baseUrl).toBe('http://127.0.0.1:1');
  });
});

describe('the OS credential store entry format', () => {
  it.each([
    [[], 'it must be a JSON object, not an array'],
    [{ clientSecret: 1 }, '/clientSecret: must be a string, not 1'],
    [
      { tokens: { ...tokens, accessToken: true } },
      '/tokens/accessToken: must be a string or null, not true',
    ],
    [{ tokens: { accessToken: 'a' } }, '/tokens: needs "refreshToken"'],
  ])('%j: %s', (data, problem) => {
    expect(keychainEntryShape(data)).toEqual({ problem });
  });

  it('takes a client secret, tokens, both or neither', () => {
    for (const entry of [{}, { clientSecret: 's' }, { tokens }, { clientSecret: 's', tokens }])
      expect(keychainEntryShape(entry)).toEqual({ value: entry });
  });
});

describe('profile names', () => {
  it('are 1–64 of A–Z a–z 0–9 . _ -, and none of Object’s own', () => {
    for (const name of ['default', 'a.b', 'A_1-x', 'x'.repeat(64)])
      expect(checkProfileName(name)).toBe(name);
    for (const name of ['', 'a b', 'a/b', 'x'.repeat(65), '__proto__', 'constructor', 'prototype'])
      expect(() => checkProfileName(name, 'DASVC_PROFILE')).toThrow(
        /^DASVC_PROFILE: .* is not a usable profile name/,
      );
  });
});

describe('the schema and the code agree', () => {
  it('on the bounds of times and durations', () => {
    const schema = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../src/schemas/config-file.schema.json'), 'utf8'),
    );
    expect(schema.$defs.time.allOf[0].maximum).toBe(MAX_DATE_MS);
    expect(schema.$defs.seconds.allOf[0].maximum).toBe(MAX_DURATION_SECONDS);
  });
});
