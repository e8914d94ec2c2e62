import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFixtures, parseClients } from '../../src/mock/fixture-format/load-fixtures.js';
import { processJsonRpc } from '../../src/mock/routes/json-rpc.js';
import { createSchemaCompiler } from '../../src/mock/fixture-format/json-schema.js';
import { parseBasicAuth, parseOAuthParams } from '../../src/mock/routes/oauth-params.js';
import { buildRedirect, redirectUriProblem } from '../../src/mock/routes/redirect-uri.js';
import { pkceMatches, safeEqual } from '../../src/mock/core/secrets.js';
import { MockState } from '../../src/mock/core/mock-state.js';
import { createMockCore } from '../../src/mock/core/mock-core.js';

describe('parseOAuthParams', () => {
  it('names the first parameter that is not valid UTF-8 percent-encoding', () => {
    expect(parseOAuthParams('a=1&state=%FF&b=%C3', '', '').malformed).toBe('state');
    expect(parseOAuthParams('a=%C3%BC&b=100%&c=%zz', '', '').malformed).toBeUndefined();
    expect(parseOAuthParams('', 'x=%ED%A0%80', 'application/x-www-form-urlencoded').malformed).toBe(
      'x',
    );
  });
  it('tells whether a form body carried parameters', () => {
    const form = 'application/x-www-form-urlencoded';
    expect(parseOAuthParams('a=1', '', form).fromBody).toBe(false);
    expect(parseOAuthParams('', 'a=1', form).fromBody).toBe(true);
    expect(parseOAuthParams('', 'a=1', 'application/json').fromBody).toBe(false);
  });
  it('merges query and form body, reports the first repeat, drops empty values', () => {
    const p = parseOAuthParams(
      'a=1&b=&c=3',
      'd=4&a=5',
      'application/x-www-form-urlencoded; charset=utf-8',
    );
    expect([...p.values]).toEqual([
      ['a', '1'],
      ['c', '3'],
      ['d', '4'],
    ]);
    expect(p.repeated).toBe('a');
  });
  it('ignores non-form bodies', () => {
    expect(parseOAuthParams('', 'a=1', 'application/json').values.size).toBe(0);
  });
});

describe('parseBasicAuth (RFC 6749 §2.3.1)', () => {
  it('decodes form-urlencoded id and secret', () => {
    const header = `Basic ${Buffer.from('my%20id:p%3Ass+w').toString('base64')}`;
    expect(parseBasicAuth(header)).toEqual({ id: 'my id', secret: 'p:ss w' });
  });
  it('flags malformed credentials, ignores other schemes', () => {
    expect(parseBasicAuth('Basic ###')).toBe('malformed');
    expect(parseBasicAuth(`Basic ${Buffer.from('nocolon').toString('base64')}`)).toBe('malformed');
    expect(parseBasicAuth('Bearer x')).toBeUndefined();
  });
});

describe('redirect URIs', () => {
  it.each([
    ['http://127.0.0.1:8080/cb', undefined],
    ['https://app.example/cb?x=1', undefined],
    ['/cb', 'redirect_uri is not an absolute URL'],
    ['ftp://x/cb', 'redirect_uri must use http or https'],
    ['http://x/cb#f', 'redirect_uri must not contain a fragment (OAuth 2.0 allows none)'],
    ['http://u:p@x/cb', 'redirect_uri must not contain credentials'],
    [
      'http://x/cb\r\nSet-Cookie: a=b',
      'redirect_uri must not contain control characters or whitespace',
    ],
    ['http://x/c b', 'redirect_uri must not contain control characters or whitespace'],
    ['http://x/cb\t', 'redirect_uri must not contain control characters or whitespace'],
    ['http://x/cb\u0085', 'redirect_uri must not contain control characters or whitespace'],
    ['http://x/cb\u3000', 'redirect_uri must not contain control characters or whitespace'],
    ['http://x/cb/\u20ac', undefined],
  ])('%j', (uri, problem) => expect(redirectUriProblem(uri)).toBe(problem));
  it('builds the Location from redirect_uri as received (SPEC §5: <redirect_uri>?state=…)', () => {
    expect(buildRedirect('http://127.0.0.1:5555', [['code', 'c']])).toBe(
      'http://127.0.0.1:5555?code=c',
    );
    expect(buildRedirect('HTTP://h:80/a/../cb', [['code', 'c']])).toBe(
      'HTTP://h:80/a/../cb?code=c',
    );
  });
  it('takes the serialized URL only for non-ASCII text: a Location is ASCII', () => {
    expect(buildRedirect('http://h/cb/\u20ac?q=\u00e9', [['state', '\u00fc']])).toBe(
      'http://h/cb/%E2%82%AC?q=%C3%A9&state=%C3%BC',
    );
    expect(buildRedirect('http://b\u00fccher.example/cb?', [['code', 'c']])).toBe(
      'http://xn--bcher-kva.example/cb?code=c',
    );
  });
  it('appends state then code, percent-encoded', () => {
    expect(
      buildRedirect('http://h/cb', [
        ['state', 'a b&c'],
        ['code', 'X'],
      ]),
    ).toBe('http://h/cb?state=a%20b%26c&code=X');
    expect(
      buildRedirect('http://h/cb?t=1', [
        ['state', 's'],
        ['x', undefined],
      ]),
    ).toBe('http://h/cb?t=1&state=s');
  });
});

describe('secrets', () => {
  it('safeEqual compares any lengths', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
  it('PKCE S256 per RFC 7636 appendix B', () => {
    expect(
      pkceMatches(
        'S256',
        'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
      ),
    ).toBe(true);
    expect(pkceMatches('plain', 'abc', 'abd')).toBe(false);
  });
});

describe('createSchemaCompiler (ajv, full JSON Schema)', () => {
  it('checks every keyword and answers with the validator message naming the value', async () => {
    const { compile } = await createSchemaCompiler();
    expect(compile({ type: 'integer', minimum: 1 })(1, 'id')).toBeUndefined();
    expect(compile({ type: 'integer' })(1.5, 'id')).toBe('id must be integer');
    expect(compile({ type: 'integer', minimum: 1 })(0, 'id')).toBe('id must be >= 1');
    expect(compile({ enum: ['a'] })('b', 'x')).toBe('x must be equal to one of the allowed values');
    expect(compile({ type: 'string', pattern: '^a' })('b', 'x')).toBe('x must match pattern "^a"');
    expect(compile({ type: 'array', items: { type: 'string' } })(['a', 1], 'x')).toBe(
      'x/1 must be string',
    );
    expect(compile({ oneOf: [{ type: 'string' }, { type: 'integer' }] })(true, 'x')).toBe(
      'x must be string, x must be integer, x must match exactly one schema in oneOf',
    );
    expect(compile({ type: 'string', format: 'email' })('nope', 'x')).toBe(
      'x must match format "email"',
    );
    const o = compile({
      type: 'object',
      required: ['a'],
      additionalProperties: false,
      properties: { a: { type: 'number' } },
    });
    expect(o({ a: 1, b: 2 }, 'o')).toBe('o must NOT have additional properties');
    expect(o({}, 'o')).toBe("o must have required property 'a'");
    expect(compile(false)(1, 'x')).toBe('x boolean schema is false');
  });
  it('resolves $ref into the components of an OpenRPC document', async () => {
    const { compile } = await createSchemaCompiler();
    const doc = { components: { schemas: { Id: { type: 'integer', minimum: 2 } } } };
    const check = compile({ properties: { id: { $ref: '#/components/schemas/Id' } } }, doc);
    expect(check({ id: 2 }, 'p')).toBeUndefined();
    expect(check({ id: 1 }, 'p')).toBe('p/id must be >= 2');
  });
  it('refuses an invalid schema with the validator message', async () => {
    const { compile } = await createSchemaCompiler();
    expect(() => compile({ type: 'integr' })).toThrow(/schema is invalid/);
    // Refused again: a failed compile is not remembered as a validator.
    expect(() => compile({ type: 'integr' })).toThrow(/schema is invalid/);
  });
  it('shares compiled schemas between mocks, never between different components or ids', async () => {
    // The process-wide cache is keyed by the schema's text and its document's components: the
    // same `$ref` text in two documents is two validators.
    const ref = { properties: { id: { $ref: '#/components/schemas/Id' } } };
    const doc = (minimum: number) => ({
      components: { schemas: { Id: { type: 'integer', minimum } } },
    });
    const a = (await createSchemaCompiler()).compile(ref, doc(2));
    const b = (await createSchemaCompiler()).compile(ref, doc(5));
    const again = (await createSchemaCompiler()).compile(structuredClone(ref), doc(2));
    expect([a({ id: 3 }, 'p'), b({ id: 3 }, 'p'), again({ id: 3 }, 'p')]).toEqual([
      undefined,
      'p/id must be >= 5',
      undefined,
    ]);
    // One `$id` with two meanings (two fixture folders in one process): each keeps its own.
    const first = (await createSchemaCompiler()).compile({ $id: 'urn:dasvc:test', type: 'string' });
    const second = (await createSchemaCompiler()).compile({
      $id: 'urn:dasvc:test',
      type: 'integer',
    });
    expect([first('a', 'x'), first(1, 'x'), second(1, 'x'), second('a', 'x')]).toEqual([
      undefined,
      'x must be string',
      undefined,
      'x must be integer',
    ]);
  });
});

describe('processJsonRpc (pure)', () => {
  const invoke = async (method: string) =>
    method === 'ok' ? { result: 1 } : { error: { code: -32601, message: 'Method not found' } };
  it('single, notification, batch, empty batch, parse error', async () => {
    expect(await processJsonRpc('{"jsonrpc":"2.0","method":"ok","id":7}', invoke)).toEqual({
      jsonrpc: '2.0',
      result: 1,
      id: 7,
    });
    expect(await processJsonRpc('{"jsonrpc":"2.0","method":"ok"}', invoke)).toBeUndefined();
    expect(await processJsonRpc('[{"jsonrpc":"2.0","method":"ok"}]', invoke)).toBeUndefined();
    expect(await processJsonRpc('[]', invoke)).toMatchObject({ error: { code: -32600 }, id: null });
    expect(await processJsonRpc('{', invoke)).toMatchObject({ error: { code: -32700 }, id: null });
  });
  it('a throwing invoke becomes -32603', async () => {
    const res = await processJsonRpc('{"jsonrpc":"2.0","method":"x","id":1}', () => {
      throw new Error('x');
    });
    expect(res).toMatchObject({ error: { code: -32603 }, id: 1 });
  });
});

describe('fixtures', () => {
  it('parses client lines: secrets, public clients, comments', () => {
    const clients = parseClients('# c\n\na:b:c\npub\n');
    expect(clients.get('a')).toEqual({ id: 'a', secret: 'b:c' });
    expect(clients.get('pub')).toEqual({ id: 'pub', secret: undefined });
  });
  it.each([
    ['clients.txt', 'a:x\na:y\n', /clients\.txt: line 2: client "a" is listed twice/],
    ['clients.txt', '# nothing\n', /clients\.txt: no client listed/],
    ['users.json', '[]', /users\.json: must be a JSON object/],
    ['instances/crm.json', '{"methods":[{"name":"x"},{"name":"x"}]}', /declared twice/],
    ['instances/crm.json', '{"methods":[{"name":"rpc.mine"}]}', /reserved/],
    [
      'instances/crm.json',
      '{"methods":[{"name":"x","params":[{"name":"a"},{"name":"b","required":true}]}]}',
      /crm\.json: \/methods\/0\/params\/1: required param "b" comes after optional "a"/,
    ],
    [
      'instances/crm.json',
      '{"methods":[{"name":"x","params":[{"name":"a","description":5}]}]}',
      /\/methods\/0\/params\/0\/description: must be a string, not 5$/,
    ],
    [
      'instances/crm.json',
      '{"methods":[{"name":"x","result":{"name":"r","schema":"string"}}]}',
      /\/methods\/0\/result\/schema: "string" must be a JSON Schema: an object or a boolean$/,
    ],
    // Refused by the files' schemas, which the loader checks them against (it once let them by).
    [
      'users.json',
      '{"alice":{"name":5,"instances":["crm"]}}',
      /users\.json: \/alice\/name: must be a string, not 5$/,
    ],
    [
      'users.json',
      '{"alice":{"instances":["crm","crm"]}}',
      /users\.json: \/alice\/instances: lists "crm" twice$/,
    ],
    [
      'users.json',
      '{"$schema":7,"alice":{"instances":[]}}',
      /users\.json: \/\$schema: must be a string, not 7$/,
    ],
    ['users.json', '{"$schema":"x"}', /users\.json: lists no user$/],
    ['users.json', '{"a b":{"instances":[]}}', /users\.json: \/a b: "a b" is not a user name/],
    [
      'instances/crm.json',
      '{"methods":[{"name":"x","handler":"crm.mjs","byUser":{}}]}',
      /crm\.json: \/methods\/0: give either "value"\/"byUser" or "handler", not both$/,
    ],
    [
      'instances/crm.json',
      '{"title":7,"methods":[]}',
      /crm\.json: \/title: must be a string, not 7$/,
    ],
    [
      'instances/crm.json',
      '{"methods":[{"name":"x","errors":{"code":1}}]}',
      /crm\.json: \/methods\/0\/errors: must be an array, not a JSON object$/,
    ],
    [
      'instances/crm.json',
      '{"methods":[{"name":"x","examples":[{"result":{"value":1}}]}]}',
      /crm\.json: \/methods\/0\/examples\/0: needs "params"$/,
    ],
    [
      'instances/crm.json',
      '{"methods":[{"name":"x","params":[{"$ref":"#/x"}]}]}',
      /crm\.json: \/methods\/0\/params\/0: "\$ref" is only resolved in OpenRPC documents/,
    ],
  ])('a broken %s is a usage error naming file and problem', (file, text, message) => {
    const dir = mkdtempSync(join(tmpdir(), 'dasvc-fx-'));
    mkdirSync(join(dir, 'instances'));
    writeFileSync(join(dir, 'clients.txt'), 'demo-client:demo-secret\n');
    writeFileSync(join(dir, 'users.json'), '{"alice":{"instances":["crm"]}}');
    writeFileSync(join(dir, 'instances', 'crm.json'), '{"methods":[]}');
    writeFileSync(join(dir, file), text);
    let error: unknown;
    try {
      loadFixtures(dir);
    } catch (e) {
      error = e;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(error).toMatchObject({ exitCode: 2, code: 'bad_fixture' });
    expect((error as Error).message).toMatch(message);
  });
  it('an invalid JSON Schema stops the making of the mock naming file, JSON pointer and the validator message', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dasvc-fx-'));
    try {
      mkdirSync(join(dir, 'instances'));
      writeFileSync(join(dir, 'clients.txt'), 'demo-client:demo-secret\n');
      writeFileSync(join(dir, 'users.json'), '{"alice":{"instances":["crm"]}}');
      writeFileSync(
        join(dir, 'instances', 'crm.json'),
        '{"methods":[{"name":"x","params":[{"name":"a","schema":{"type":"int"}}]}]}',
      );
      expect(() => createMockCore({ fixtures: dir })).toThrow(
        /crm\.json: \/methods\/0\/params\/0\/schema: invalid JSON Schema: schema is invalid: data\/type/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('loads the default fixtures', () => {
    const f = loadFixtures();
    expect(f.clients.get('demo-client')?.secret).toBe('demo-secret');
    expect(f.clients.get('other-client')?.secret).toBe('other-secret');
    expect([...f.users.get('alice')!.instances]).toEqual(['crm', 'wiki']);
    expect([...f.users.get('bob')!.instances]).toEqual(['crm']);
    expect([...f.instances.get('crm')!.methods.keys()]).toEqual(['contacts.list', 'contacts.get']);
    expect([...f.instances.get('wiki')!.methods.keys()]).toEqual(['pages.list']);
  });
});

describe('MockState', () => {
  it('purges expired tokens so memory stays bounded', async () => {
    let now = 0;
    const state = new MockState(
      { codeSeconds: 60, accessSeconds: 60, refreshSeconds: 600 },
      () => now,
    );
    for (let i = 0; i < 1000; i++) state.mint({ clientId: 'c', user: 'u', scopes: ['crm'] });
    expect(state.tokens.size).toBe(2000);
    now += 61_000;
    state.mint({ clientId: 'c', user: 'u', scopes: ['crm'] });
    // The sweep runs in 5 ms slices: on a loaded machine it may go on in later turns (it failed
    // with 978 left when the test read the sizes at once). Waited for, bounded.
    for (let turn = 0; state.sweeping && turn < 1000; turn++)
      await new Promise((resolve) => setImmediate(resolve));
    expect(state.sweeping).toBe(false);
    expect(state.tokens.size).toBe(2);
    expect(state.grants.size).toBe(1);
    expect(state.rotated.size).toBe(0);
  });
  it('a refresh token handed back unchanged is marked used, in the snapshot only when it is', () => {
    const lifetimes = { codeSeconds: 60, accessSeconds: 60, refreshSeconds: 600 };
    const state = new MockState(lifetimes, () => 0);
    const pair = state.mint({ clientId: 'c', user: 'u', scopes: ['crm'] });
    // Older versions refuse unknown members: nothing is written while nothing is used.
    expect(JSON.stringify(state.snapshot())).not.toContain('refreshUsed');
    state.rotate(state.liveToken(pair.refresh_token)!, true);
    expect(JSON.stringify(state.snapshot())).toContain('"refreshUsed":true');
    const again = new MockState(lifetimes, () => 0);
    again.restore(JSON.parse(JSON.stringify(state.snapshot())));
    expect(again.grantOf(again.liveToken(pair.refresh_token)!)?.refreshUsed).toBe(true);
  });
  it('restore never hands out a grant id that a code or rotated token still names', () => {
    const lifetimes = { codeSeconds: 60, accessSeconds: 60, refreshSeconds: 600 };
    const scopes = ['crm'];
    const state = new MockState(lifetimes, () => 0);
    // A file written before grantSeq was kept: the highest id survives only in codes and rotated.
    state.restore({
      version: 1,
      offsetSeconds: 0,
      codes: [
        [
          'c',
          {
            clientId: 'c',
            redirectUri: 'http://x/',
            user: 'u',
            scopes,
            expiresAt: 1e6,
            grantId: 4,
          },
        ],
      ],
      grants: [[2, { clientId: 'c', user: 'u', scopes }]],
      rotated: [['t', { grantId: 9, expiresAt: 1e6 }]],
    });
    state.mint({ clientId: 'c', user: 'u', scopes });
    expect([...state.grants.keys()]).toContain(10);
    const again = new MockState(lifetimes, () => 0);
    again.restore({ ...state.snapshot(), codes: [], rotated: [] });
    expect(again.snapshot().grantSeq).toBe(10);
  });
  it('expires_in is whole seconds rounded down', () => {
    const state = new MockState(
      { codeSeconds: 60, accessSeconds: 1.9, refreshSeconds: 600 },
      () => 5,
    );
    expect(state.mint({ clientId: 'c', user: 'u', scopes: ['crm'] }).expires_in).toBe('1');
  });
});
