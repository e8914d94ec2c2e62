// SPEC §6: schema patterns run on a linear-time engine, so that no input makes one request hold
// the mock; a pattern that engine cannot run stops the start naming file and JSON pointer. The
// checks below would outlast the test's time limit on a backtracking engine (or on ajv's pairwise
// `uniqueItems`), so their passing is the proof: no clock is read.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMockApp, startMockServer, type MockApp } from '../../src/mock/index.js';
import { UsageError } from '../../src/errors.js';
import { runDasvc } from '../helpers/mock-process.js';
import { bearerOf, openRpcFolder } from '../helpers/openrpc-folder.js';

const BASE = 'http://mock.test';
/** Exponential for a backtracking engine: every split of the a's is tried before failing. */
const EVIL = '^(a|a)*$';
const EVIL_INPUT = `${'a'.repeat(29)}!`;

function documentWith(methods: unknown[], components: Record<string, unknown> = {}): unknown {
  return { openrpc: '1.2.6', info: { title: 'lin', version: '1' }, methods, components };
}

const method = (name: string, schema: unknown) => ({
  name,
  params: [{ name: 'v', required: true, schema }],
  result: { name: 'r', schema: {} },
});

/** `call(method, params)` on instance lin of a mock made from `doc`, as user u. */
function mockOf(doc: unknown): { app: MockApp; call: (m: string, p: unknown) => Promise<unknown> } {
  const app = createMockApp({ fixtures: openRpcFolder('lin', doc) });
  let token: string | undefined;
  const call = async (name: string, params: unknown) => {
    if (token === undefined) {
      token = await bearerOf(app, 'lin', BASE);
    }
    const res = await app(
      new Request(`${BASE}/webservice/json/lin`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: name, params }),
      }),
    );
    return ((await res.json()) as { error?: unknown }).error;
  };
  return { app, call };
}

describe('no input holds the mock', () => {
  const { app, call } = mockOf(
    documentWith(
      [
        method('direct', { type: 'string', pattern: EVIL }),
        method('keys', {
          type: 'object',
          patternProperties: { [EVIL]: {} },
          additionalProperties: false,
        }),
        method('referenced', { $ref: '#/components/schemas/Word' }),
        method('distinct', { type: 'array', uniqueItems: true }),
      ],
      { schemas: { Word: { type: 'string', pattern: EVIL } } },
    ),
  );
  afterAll(() => app.close());

  it.each([
    ['a pattern', 'direct', EVIL_INPUT, `v must match pattern "${EVIL}"`],
    ['a pattern reached by $ref', 'referenced', EVIL_INPUT, `v must match pattern "${EVIL}"`],
    [
      'a patternProperties key',
      'keys',
      { [EVIL_INPUT]: 1 },
      `v must NOT have additional properties (${JSON.stringify(EVIL_INPUT)})`,
    ],
  ])(
    '%s that backtracking would take for ever on: -32602 at once',
    async (_what, name, v, data) => {
      expect(await call(name, { v })).toEqual({ code: -32602, message: 'Invalid params', data });
      // The engine still matches what the pattern means.
      const fine = typeof v === 'string' ? 'aaaa' : { aaaa: 1 };
      expect(await call(name, { v: fine })).toMatchObject({ code: -32001 });
    },
  );

  it('uniqueItems over a large array of arrays: one pass, not every pair', async () => {
    // ~0.9 MB, under the body limit; the duplicate is the last pair a pairwise check would reach.
    const items = Array.from({ length: 110_000 }, (_, i) => [i]);
    items[1] = [0];
    expect(await call('distinct', { v: items })).toEqual({
      code: -32602,
      message: 'Invalid params',
      data: 'v must NOT have duplicate items (items ## 1 and 0 are identical)',
    });
    // Member order does not make two objects different, as JSON Schema says.
    expect(
      await call('distinct', {
        v: [
          { a: 1, b: 2 },
          { b: 2, a: 1 },
        ],
      }),
    ).toMatchObject({
      data: 'v must NOT have duplicate items (items ## 1 and 0 are identical)',
    });
    expect(await call('distinct', { v: [{ a: 1 }, { a: '1' }, 1, '1', [1]] })).toMatchObject({
      code: -32001,
    });
  });
});

describe('an enum of 200 000 values', () => {
  it('loads, and checks params against it', async () => {
    // Made in the test, so that the test's time limit covers the loading.
    const values = Array.from({ length: 200_000 }, (_, i) => `value-${i}`);
    const { app, call } = mockOf(documentWith([method('pick', { enum: values })]));
    try {
      expect(await call('pick', { v: 'value-199999' })).toMatchObject({ code: -32001 });
      expect(await call('pick', { v: 'value-200000' })).toEqual({
        code: -32602,
        message: 'Invalid params',
        data: 'v must be equal to one of the allowed values',
      });
    } finally {
      await app.close();
    }
  });
});

describe('a pattern the linear-time engine cannot run', () => {
  const cases = [
    [
      'a lookahead',
      documentWith([method('m', { type: 'object', properties: { a: { pattern: 'x(?=y)' } } })]),
      '/methods/0/params/0/schema/properties/a/pattern',
      'pattern "x(?=y)" cannot run on the linear-time engine (RE2): invalid or unsupported Perl syntax: `(?=`',
    ],
    [
      'a backreference in components',
      documentWith([method('m', { $ref: '#/components/schemas/Twice' })], {
        schemas: { Twice: { patternProperties: { '(a)\\1': { type: 'integer' } } } },
      }),
      '/components/schemas/Twice/patternProperties/(a)\\1',
      'pattern "(a)\\\\1" cannot run on the linear-time engine (RE2): invalid escape sequence: `\\1`',
    ],
  ] as const;

  it.each(cases)(
    '%s stops the start naming file and JSON pointer',
    async (_what, doc, pointer, problem) => {
      const dir = openRpcFolder('lin', doc);
      const error = await startMockServer({ fixtures: dir, port: 0 }).then(
        () => new Error('it started'),
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).exitCode).toBe(2);
      expect((error as UsageError).message).toBe(
        `fixture ${join(dir, 'instances', 'lin.openrpc.json')}: ${pointer}: ${problem}`,
      );
      // The library's synchronous face refuses it as it is made, not with a 500 later.
      expect(() => createMockApp({ fixtures: dir })).toThrow(UsageError);
    },
  );

  it('dasvc mock exits 2 naming it', async () => {
    const [, doc, pointer] = cases[0];
    const r = await runDasvc(['mock', '--port', '0', '--fixtures', openRpcFolder('lin', doc)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`lin.openrpc.json: ${pointer}: pattern "x(?=y)" cannot run`);
  });
});
