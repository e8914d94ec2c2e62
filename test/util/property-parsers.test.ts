import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { binaryString } from '../helpers/binary-string.js';
import { afterAll, describe, expect, it } from 'vitest';
import { AuthError, DasvcError, UsageError } from '../../src/errors.js';
import { parseCallback, parsePastedRedirect } from '../../src/oauth/callback.js';
import { processTokenResponse, readExpiresIn } from '../../src/oauth/token-response.js';
import { parseParams } from '../../src/rpc/params.js';
import {
  FixtureProblem,
  NAME,
  parseClients,
  parseInstance,
  parseUsers,
} from '../../src/mock/fixture-format/fixture-format.js';
import { parseQuirks } from '../../src/mock/core/quirks.js';
import { QUIRK_VALUES } from '../helpers/quirk-table.js';
import { loadStateFile } from '../../src/mock/core/state-file.js';
import { MAX_DATE_MS, MAX_DURATION_SECONDS } from '../../src/util/duration.js';

/**
 * Property tests of what parses untrusted input: whatever arrives, the parser
 * answers or throws its own typed error, never anything else. A fixed count from the fixed seed; a
 * failure prints fast-check's seed and path (rerun with `{ seed, path }` to replay it).
 */
const RUNS = { numRuns: 300 };

/** Calls fn: its answer, or undefined when it threw a `kind` (any other throw fails the test). */
function answerOrThrown<T, E extends Error>(
  fn: () => T,
  kind: abstract new (...args: never[]) => E,
  checkThrown: (error: E) => void = () => {},
): T | undefined {
  try {
    return fn();
  } catch (error) {
    if (!(error instanceof kind)) throw error;
    checkThrown(error);
    return undefined;
  }
}

const text = binaryString({ maxLength: 60 });

/**
 * URLs as a browser's address bar or a terminal hands them over: a scheme, a host, a path, a
 * query of pairs (the redirect's own names among them) and a fragment, each part encoded or raw.
 * Built from parts rather than with `fc.webUrl`, whose path arbitrary maps every code point
 * (a 1.1M-entry Map, ~0.5 s of CPU) each time the test file runs.
 */
const pastedUrl = fc
  .record({
    scheme: fc.constantFrom('http', 'https', 'HTTP', 'ftp', 'dasvc'),
    host: fc.oneof(
      fc.constantFrom('127.0.0.1', 'localhost', '[::1]', 'example.com', 'xn--bcher-kva.example'),
      fc.ipV4(),
    ),
    port: fc.option(fc.integer({ min: 0, max: 65535 }), { nil: undefined }),
    path: fc.array(text, { maxLength: 3 }),
    query: fc.array(fc.tuple(fc.oneof(fc.constantFrom('code', 'state', 'error'), text), text), {
      maxLength: 4,
    }),
    fragment: fc.option(text, { nil: undefined }),
    encoded: fc.boolean(),
  })
  .map(({ scheme, host, port, path, query, fragment, encoded }) => {
    const part = (s: string) => (encoded ? encodeURIComponent(s) : s);
    const search = query.map(([k, v]) => `${part(k)}=${part(v)}`).join('&');
    return (
      `${scheme}://${host}${port === undefined ? '' : `:${port}`}/${path.map(part).join('/')}` +
      `${search === '' ? '' : `?${search}`}${fragment === undefined ? '' : `#${part(fragment)}`}`
    );
  });
const noFiles = {
  readFile: (path: string): string => {
    throw new Error(`ENOENT: ${path}`);
  },
  readStdin: () => '{"from":"stdin"}',
};

describe('params items (dasvc rpc, SPEC §3)', () => {
  it('any items: params (an object or array) or a UsageError', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(text, fc.constantFrom('-', '{', 'a:=', '=x', 'k=@f', 'k:=@f')), {
          maxLength: 6,
        }),
        (items) => {
          try {
            const params = parseParams(items, noFiles);
            expect(typeof params === 'object' && params !== null).toBe(true);
          } catch (error) {
            if (!(error instanceof UsageError)) throw error;
          }
        },
      ),
      RUNS,
    );
  });

  it('key=value and key:=json items give back exactly what was written', () => {
    const key = fc
      .string({ minLength: 1, maxLength: 12 })
      .filter((k) => !/[=]/.test(k) && !k.endsWith(':') && !/^\s*[[{]/.test(k) && k !== '-');
    const entries = fc.uniqueArray(
      fc.tuple(
        key,
        fc.oneof(
          binaryString({ maxLength: 30 }).map((v) => ({ typed: false, v: v as unknown })),
          fc.jsonValue({ maxDepth: 2 }).map((v) => ({ typed: true, v })),
        ),
      ),
      { selector: ([k]) => k, minLength: 1, maxLength: 5 },
    );
    fc.assert(
      fc.property(entries, (pairs) => {
        const items = pairs.map(([k, { typed, v }]) =>
          typed ? `${k}:=${JSON.stringify(v)}` : `${k}=${v as string}`,
        );
        // A plain value starting with @ names a file: leave those to the file cases.
        fc.pre(
          pairs.every(([, { typed, v }]) => typed || !(v as string).startsWith('@') || v === '@'),
        );
        const expected = Object.fromEntries(
          pairs.map(([k, { v }]) => [k, JSON.parse(JSON.stringify(v ?? null)) as unknown]),
        );
        expect(parseParams(items, noFiles)).toEqual(expected);
      }),
      RUNS,
    );
  });
});

describe('pasted redirect URLs and callback queries (SPEC §3 login)', () => {
  it('any pasted text: a query or undefined, never a throw', () => {
    fc.assert(
      fc.property(fc.oneof(text, pastedUrl), (pasted) => {
        const query = parsePastedRedirect(pasted);
        expect(query === undefined || query instanceof URLSearchParams).toBe(true);
      }),
      RUNS,
    );
  });

  it('the code and state of a redirect come back byte for byte, pasted or caught', () => {
    fc.assert(
      fc.property(
        binaryString({ minLength: 1, maxLength: 40 }),
        binaryString({ minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 65535 }),
        (code, state, port) => {
          const url = `http://127.0.0.1:${port}/callback?${new URLSearchParams({ state, code })}`;
          const query = parsePastedRedirect(`  ${url}\n`)!;
          expect(parseCallback(query, state)).toEqual({ kind: 'code', code });
        },
      ),
      RUNS,
    );
  });

  it('any callback query: a code only with the exact state; else ignored or AuthError', () => {
    const params = fc.dictionary(
      fc.constantFrom('code', 'state', 'error', 'error_description', 'x'),
      text,
      { maxKeys: 5 },
    );
    fc.assert(
      fc.property(params, text, (dict, expected) => {
        const query = new URLSearchParams(dict);
        try {
          const result = parseCallback(query, expected);
          if (result.kind === 'code') {
            expect(query.get('state')).toBe(expected);
            expect(query.get('error')).toBeNull();
          } else {
            expect(query.get('code') ?? query.get('error')).toBeNull();
          }
        } catch (error) {
          if (!(error instanceof AuthError)) throw error;
        }
      }),
      RUNS,
    );
  });
});

describe('token responses (SERVICE.md §2.3, RFC 6749 §5)', () => {
  const expiresIn = fc.oneof(
    fc.double(),
    fc.integer(),
    fc.string(),
    fc.double().map(String),
    fc.constantFrom('1e300', 1e13, '3600', ' 60 ', null, true, [], {}),
  );
  const body = fc.oneof(
    fc.record(
      {
        access_token: fc.oneof(fc.string(), fc.anything()),
        refresh_token: fc.anything(),
        expires_in: expiresIn,
      },
      { requiredKeys: [] },
    ),
    fc.record(
      { error: fc.oneof(fc.string(), fc.anything()), error_description: fc.anything() },
      { requiredKeys: [] },
    ),
    fc.anything(),
  );
  const answer = fc.record({
    status: fc.oneof(
      fc.constantFrom(200, 201, 400, 401, 403, 500, 502),
      fc.integer({ min: 100, max: 599 }),
    ),
    text: fc.oneof(
      body.map((b) => JSON.stringify(b) ?? ''),
      text,
    ),
  });

  it('any answer: tokens with a representable expiry, or a typed error with an exit code', () => {
    const now = Date.UTC(2026, 10, 23);
    fc.assert(
      fc.property(answer, (response) => {
        try {
          const tokens = processTokenResponse(
            { ...response, headers: {} },
            now,
            'token request',
            null,
            () => {},
          );
          expect(typeof tokens.accessToken).toBe('string');
          if (tokens.expiresAt !== null) {
            expect(tokens.expiresAt).toBeGreaterThanOrEqual(now);
            expect(tokens.expiresAt).toBeLessThanOrEqual(MAX_DATE_MS);
            expect(() => new Date(tokens.expiresAt!).toISOString()).not.toThrow();
          }
        } catch (error) {
          if (!(error instanceof DasvcError)) throw error;
          expect([1, 3, 4]).toContain(error.exitCode);
        }
      }),
      RUNS,
    );
  });

  it('expires_in: a number of seconds within 100 years, or unknown', () => {
    fc.assert(
      fc.property(expiresIn, (value) => {
        const seconds = readExpiresIn(value);
        if (seconds !== null) {
          expect(seconds).toBeGreaterThanOrEqual(0);
          expect(seconds).toBeLessThanOrEqual(MAX_DURATION_SECONDS);
        }
      }),
      RUNS,
    );
  });
});

describe('fixture files (SPEC §5 fixtures)', () => {
  it('any clients file: clients or a FixtureProblem', () => {
    const line = fc.oneof(
      text,
      fc.tuple(fc.string(), fc.string()).map(([a, b]) => `${a}:${b}`),
      fc.constantFrom('# c', '', 'demo:demo-secret'),
    );
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 6 }).map((l) => l.join('\n')),
        (file) => {
          const clients = answerOrThrown(
            () => parseClients(file),
            FixtureProblem,
            // The problem names its line, or says that no line lists a client.
            (error) => expect(error.message).toMatch(/^line \d+: |^no client listed/),
          );
          if (clients === undefined) return;
          // One client per line that is not a comment or blank (at least one), each a valid name,
          // no empty secret.
          const lines = file.split(/\r?\n/).map((l) => l.trim());
          expect(clients.size).toBe(lines.filter((l) => l !== '' && !l.startsWith('#')).length);
          expect(clients.size).toBeGreaterThan(0);
          for (const [id, client] of clients) {
            expect(client.id).toBe(id);
            expect(id).toMatch(NAME);
            expect(client.secret).not.toBe('');
          }
        },
      ),
      RUNS,
    );
  });

  it('any instance or users document: parsed or a FixtureProblem', () => {
    const method = fc.record(
      {
        name: fc.oneof(fc.string(), fc.anything()),
        params: fc.anything(),
        result: fc.anything(),
        handler: fc.anything(),
        results: fc.anything(),
      },
      { requiredKeys: [] },
    );
    const instance = fc.oneof(
      fc.anything(),
      fc.record(
        {
          methods: fc.oneof(fc.array(method, { maxLength: 3 }), fc.anything()),
          title: fc.anything(),
        },
        { requiredKeys: [] },
      ),
    );
    const users = fc.oneof(
      fc.anything(),
      fc.dictionary(
        fc.string(),
        fc.record(
          {
            name: fc.anything(),
            instances: fc.oneof(fc.array(fc.constantFrom('crm', 'wiki', 'x')), fc.anything()),
          },
          { requiredKeys: [] },
        ),
      ),
    );
    fc.assert(
      fc.property(instance, users, (doc, userDoc) => {
        const parsed = answerOrThrown(
          () => parseInstance('crm', doc, '/nonexistent'),
          FixtureProblem,
        );
        if (parsed !== undefined) {
          // Every declared method, each once, under its own name.
          const declared = (doc as { methods: unknown[] }).methods;
          expect(parsed.name).toBe('crm');
          expect(parsed.methods.size).toBe(declared.length);
          for (const [name, method] of parsed.methods) expect(method.name).toBe(name);
        }
        const instances = new Map([
          ['crm', { name: 'crm', title: 'crm', methods: new Map(), file: 'crm.json' }],
        ]);
        const parsedUsers = answerOrThrown(() => parseUsers(userDoc, instances), FixtureProblem);
        if (parsedUsers !== undefined) {
          // At least one user, each a valid name reaching only instances that exist.
          expect(parsedUsers.size).toBeGreaterThan(0);
          for (const [id, user] of parsedUsers) {
            expect(id).toMatch(NAME);
            for (const name of user.instances) expect(instances.has(name)).toBe(true);
          }
        }
      }),
      RUNS,
    );
  });
});

describe('quirks files (SPEC §7)', () => {
  it('any JSON: quirks or a UsageError naming the problem', () => {
    const member = fc.constantFrom(...Object.keys(QUIRK_VALUES), 'tokenPath', 'other');
    const doc = fc.oneof(
      fc.anything(),
      fc.dictionary(
        member,
        fc.oneof(
          fc.anything(),
          fc.constantFrom(...Object.values(QUIRK_VALUES).flat()),
          fc.string().map((s) => `/${s}`),
        ),
      ),
    );
    fc.assert(
      fc.property(doc, (value) => {
        const quirks = answerOrThrown(
          () => parseQuirks(value, 'quirks file q.json'),
          UsageError,
          (error) => expect(error.message).toMatch(/^quirks file q\.json: /),
        );
        if (quirks === undefined) return;
        // Exactly the members given, each a known one with one of its allowed values.
        expect(quirks).toEqual(value);
        for (const [name, member] of Object.entries(quirks)) {
          if (name === 'tokenPath') expect(typeof member).toBe('string');
          else expect(QUIRK_VALUES[name as keyof typeof QUIRK_VALUES]).toContain(member);
        }
      }),
      RUNS,
    );
  });

  it('every valid quirks object comes back as it was', () => {
    const valid = fc.record(
      Object.fromEntries(
        Object.entries(QUIRK_VALUES).map(([name, values]) => [
          name,
          fc.constantFrom(...(values as readonly unknown[])),
        ]),
      ),
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(valid, (quirks) => {
        expect(parseQuirks(JSON.parse(JSON.stringify(quirks)))).toEqual(quirks);
      }),
      RUNS,
    );
  });
});

describe('mock state files (SPEC §5 --state-file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dasvc-prop-state-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'state.json');
  const snapshot =
    '{"version":1,"offsetSeconds":0,"grantSeq":0,"codes":[],"grants":[],"rotated":[]}';
  const grant = { clientId: 'demo-client', user: 'alice', scopes: ['crm'] };
  const line = fc.oneof(
    text,
    fc.anything().map((v) => JSON.stringify(v) ?? ''),
    fc
      .record(
        {
          kind: fc.constantFrom('code', 'grant', 'grant-ended', 'rotated', 'clock', 'reset', 'x'),
          id: fc.oneof(fc.integer(), fc.double()),
          record: fc.oneof(fc.constant(grant), fc.anything()),
          offsetSeconds: fc.oneof(fc.integer(), fc.double()),
        },
        { requiredKeys: ['kind'] },
      )
      .map((v) => JSON.stringify(v)),
  );

  it('any journal after a snapshot: a state, or a UsageError naming the file', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 5 }), fc.boolean(), (lines, cut) => {
        writeFileSync(file, `${[snapshot, ...lines].join('\n')}${cut ? '' : '\n'}`);
        try {
          const state = loadStateFile(file);
          expect(state?.version).toBe(1);
        } catch (error) {
          if (!(error instanceof UsageError)) throw error;
          expect(error.message).toContain(file);
        }
      }),
      { ...RUNS, numRuns: 150 },
    );
  });
});
