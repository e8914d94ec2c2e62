import { hintFor } from '../../src/cli/hints/hint-for.js';
import { describe, expect, it } from 'vitest';
import { UsageError, AuthError, NetworkError, ServiceError } from '../../src/errors.js';
import {
  buildApiRequest,
  buildCall,
  JsonRpcError,
  processApiResponse,
  rpcErrorFrom,
} from '../../src/rpc/jsonrpc.js';
import { paramFilePaths, parseParams } from '../../src/rpc/params.js';
import fc from 'fast-check';
import { binaryString } from '../helpers/binary-string.js';
import { RUNS, text } from '../helpers/parser-properties.js';

const files: Record<string, string> = { 'name.txt': 'Ada\n', 'ids.json': '[1, 2]' };
const sources = {
  readFile: (path: string) => {
    if (!(path in files)) throw new Error('ENOENT');
    return files[path]!;
  },
  readStdin: () => '{"id": 7}',
};

describe('params grammar (SPEC §3)', () => {
  it('sends {} without params', () => {
    expect(parseParams([], sources)).toEqual({});
    // Regression (fast-check seed -1233210142): `__proto__=` was assigned, not added as a member.
    const odd = parseParams(['__proto__=', ' :=0'], sources);
    expect(JSON.stringify(odd)).toBe('{"__proto__":""," ":0}');
    expect(Object.getPrototypeOf(odd)).toBe(Object.prototype);
  });
  it('takes one JSON object or array argument', () => {
    expect(parseParams(['{"id":1}'], sources)).toEqual({ id: 1 });
    expect(parseParams(['[1,"a"]'], sources)).toEqual([1, 'a']);
  });
  it('reads - from stdin', () => {
    expect(parseParams(['-'], sources)).toEqual({ id: 7 });
  });
  it('reads key=value, key:=json, key=@file, key:=@file', () => {
    expect(
      parseParams(
        [
          'a=b=c',
          'n:=1',
          'flag:=true',
          'o:={"x":[1]}',
          'name=@name.txt',
          'ids:=@ids.json',
          'empty=',
        ],
        sources,
      ),
    ).toEqual({
      a: 'b=c',
      n: 1,
      flag: true,
      o: { x: [1] },
      name: 'Ada\n',
      ids: [1, 2],
      empty: '',
    });
  });
  it('keeps a literal @ alone as a string', () => {
    expect(parseParams(['at=@'], sources)).toEqual({ at: '@' });
  });
  it('refuses what it cannot read, as usage errors', () => {
    for (const bad of [
      ['novalue'],
      ['=x'],
      [':=1'],
      ['n:=nope'],
      ['f=@missing'],
      ['{bad json'],
      ['"str"'],
      ['a=1', '-'],
      ['a=1', 'a=2'],
      ['{"a":1}', 'b=2'],
    ]) {
      expect(() => parseParams(bad, sources), bad.join(' ')).toThrow(UsageError);
    }
  });
  it('requires structured params from stdin', () => {
    expect(() => parseParams(['-'], { ...sources, readStdin: () => '42' })).toThrow(UsageError);
  });
});

describe('JSON-RPC request and response (SERVICE.md §4.5)', () => {
  it('builds calls and notifications', () => {
    expect(buildCall('m', {}, 3)).toEqual({ jsonrpc: '2.0', method: 'm', params: {}, id: 3 });
    expect(buildCall('m', {}, 3, true)).toEqual({ jsonrpc: '2.0', method: 'm', params: {} });
  });
  it('sends the bearer token in the Authorization header', () => {
    const request = buildApiRequest('http://h/webservice/json/crm', 'TOK', { a: 1 });
    expect(request).toMatchObject({
      method: 'POST',
      headers: { authorization: 'Bearer TOK', 'content-type': 'application/json' },
      body: '{"a":1}',
    });
  });
  const res = (status: number, text: string, headers: Record<string, string> = {}) => ({
    status,
    text,
    headers,
  });
  it('maps HTTP statuses to exit codes', () => {
    expect(() =>
      processApiResponse(
        res(401, '', { 'www-authenticate': 'Bearer error="invalid_token"' }),
        'crm',
      ),
    ).toThrow(AuthError);
    expect(() => processApiResponse(res(403, ''), 'wiki')).toThrow(
      expect.objectContaining({ name: 'AuthError', facts: { scope: 'wiki' } }),
    );
    // The hint is the CLI's, made from the code and the scope.
    const refused = (() => {
      try {
        processApiResponse(res(403, ''), 'wiki');
      } catch (error) {
        return error as AuthError;
      }
      throw new Error('not refused');
    })();
    expect(hintFor(refused)).toBe('dasvc login --scope wiki');
    expect(refused).toMatchObject({
      message: 'the access token does not grant scope wiki (HTTP 403)',
      code: 'insufficient_scope',
      status: 403,
    });
    expect(() => processApiResponse(res(401, '', { 'www-authenticate': 'Bearer' }), 'crm')).toThrow(
      expect.objectContaining({
        message: 'the access token was refused for scope crm (HTTP 401: Bearer)',
        code: 'invalid_token',
        status: 401,
        facts: { scope: 'crm' },
      }),
    );
    // The service's JSON 404 is its answer (1); another server's 404 page is not the JSON expected (4).
    expect(() => processApiResponse(res(404, '{"error":"not_found"}'), 'x')).toThrow(
      expect.objectContaining({ name: 'ServiceError', detail: { error: 'not_found' } }),
    );
    expect(() => processApiResponse(res(404, '<html>Not Found</html>'), 'x')).toThrow(
      expect.objectContaining({ name: 'NetworkError', exitCode: 4 }),
    );
    expect(() => processApiResponse(res(500, ''), 'x')).toThrow(ServiceError);
    // A 5xx's body is the service's words only when it is JSON.
    expect(() => processApiResponse(res(503, '{"busy":true}'), 'x')).toThrow(
      expect.objectContaining({ code: 'http_503', detail: { busy: true } }),
    );
    expect(() => processApiResponse(res(502, '<html>Bad Gateway</html>'), 'x')).toThrow(
      expect.objectContaining({ code: 'http_502', detail: undefined }),
    );
    expect(() => processApiResponse(res(200, '<html>'), 'x')).toThrow(NetworkError);
    expect(processApiResponse(res(204, ''), 'x')).toEqual({ kind: 'none' });
    expect(processApiResponse(res(200, '{"jsonrpc":"2.0","result":1,"id":1}'), 'x')).toEqual({
      kind: 'json',
      body: { jsonrpc: '2.0', result: 1, id: 1 },
      text: '{"jsonrpc":"2.0","result":1,"id":1}',
    });
  });
  it('turns a JSON-RPC error object into "error <code>: <message>"', () => {
    const error = rpcErrorFrom({
      jsonrpc: '2.0',
      error: { code: -32601, message: 'Method not found', data: { m: 'x' } },
      id: 1,
    });
    expect(error?.message).toBe('error -32601: Method not found');
    expect(error?.detail).toEqual({ m: 'x' });
    expect(error?.exitCode).toBe(1);
    expect(rpcErrorFrom({ jsonrpc: '2.0', result: null, id: 1 })).toBeUndefined();
  });
});

describe('processApiResponse with the request it answers (JSON-RPC 2.0 §5–6)', () => {
  const res = (status: number, text: string) => ({ status, headers: {}, text });
  const call = buildCall('m', {}, 1);
  const notification = buildCall('m', {}, 1, true);
  const batch = [buildCall('a', {}, 1), buildCall('b', {}, 2), notification];
  const unexpected = (text: string, request: unknown, status = 200) => {
    try {
      processApiResponse(res(status, text), 'x', request);
    } catch (error) {
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as NetworkError).message).toContain('not the JSON-RPC answer expected');
      return;
    }
    throw new Error(`accepted ${text}`);
  };

  it('accepts the answer to the call, by id, result or error', () => {
    expect(
      processApiResponse(res(200, '{"jsonrpc":"2.0","result":null,"id":1}'), 'x', call),
    ).toEqual({
      kind: 'json',
      body: { jsonrpc: '2.0', result: null, id: 1 },
      text: '{"jsonrpc":"2.0","result":null,"id":1}',
    });
    const error = '{"jsonrpc":"2.0","error":{"code":-32600,"message":"bad"},"id":null}';
    expect(processApiResponse(res(200, error), 'x', call).kind).toBe('json');
  });

  it('regression: refuses a 200 that is not the JSON-RPC answer to the call', () => {
    for (const text of [
      '{"foo":1}',
      'null',
      '"text"',
      '{"result":1,"id":1}',
      '{"jsonrpc":"1.0","result":1,"id":1}',
      '{"jsonrpc":"2.0","id":1}',
      '{"jsonrpc":"2.0","result":1,"error":{"code":1,"message":"m"},"id":1}',
      '{"jsonrpc":"2.0","result":1}',
      '{"jsonrpc":"2.0","result":1,"id":2}',
      '{"jsonrpc":"2.0","result":1,"id":"1"}',
      '{"jsonrpc":"2.0","result":1,"id":null}',
      '{"jsonrpc":"2.0","error":{"code":"x","message":"m"},"id":1}',
      '{"jsonrpc":"2.0","error":{"code":1.5,"message":"m"},"id":1}',
      '[{"jsonrpc":"2.0","result":1,"id":1}]',
    ])
      unexpected(text, call);
  });

  it('regression: an empty answer only for a notification or an all-notification batch', () => {
    unexpected('', call);
    unexpected('', call, 204);
    unexpected('', batch);
    expect(processApiResponse(res(200, ''), 'x', notification)).toEqual({ kind: 'none' });
    expect(processApiResponse(res(204, ''), 'x', [notification, notification])).toEqual({
      kind: 'none',
    });
  });

  it('regression: a batch is answered by an array of responses to its ids', () => {
    const a = '{"jsonrpc":"2.0","result":"a","id":1}';
    const b = '{"jsonrpc":"2.0","result":"b","id":2}';
    expect(processApiResponse(res(200, `[${b},${a}]`), 'x', batch).kind).toBe('json');
    unexpected(a, batch);
    unexpected('[]', batch);
    unexpected(`[${a},${a}]`, batch);
    // Regression: a batch that sends one id twice gets it answered twice (it was a network error).
    const twice = [buildCall('a', {}, 1), buildCall('a', {}, 1)];
    expect(processApiResponse(res(200, `[${a},${a}]`), 'x', twice).kind).toBe('json');
    unexpected(`[${a},${a},${a}]`, twice);
    unexpected(`[${a},{"jsonrpc":"2.0","result":"c","id":3}]`, batch);
    unexpected(`[${a},{"foo":1}]`, batch);
    // §6: a batch refused as a whole is answered by one error object with a null id.
    const refused =
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}';
    expect(processApiResponse(res(200, refused), 'x', []).kind).toBe('json');
    // A member that is no request object is answered with a null id.
    const nullId =
      '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}';
    expect(processApiResponse(res(200, `[${nullId}]`), 'x', [1]).kind).toBe('json');
  });

  it('regression: a JSON-RPC error sent with a 5xx is that error (it was only "HTTP 500")', () => {
    const internal = '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":1}';
    expect(processApiResponse(res(500, internal), 'x', call)).toEqual({
      kind: 'json',
      body: JSON.parse(internal),
      text: internal,
    });
    // A result, an OAuth-shaped body or another call's answer with a 5xx stays the 5xx.
    for (const text of [
      '{"jsonrpc":"2.0","result":1,"id":1}',
      '{"error":"server_error"}',
      '{"jsonrpc":"2.0","error":{"code":-32603,"message":"m"},"id":9}',
      '<html>',
    ])
      expect(() => processApiResponse(res(503, text), 'x', call)).toThrow(/HTTP 503/);
  });

  it('carries the JSON-RPC error object for --json output', () => {
    const error = rpcErrorFrom({
      jsonrpc: '2.0',
      error: { code: -32004, message: 'Contact not found', data: { id: 3 } },
      id: 1,
    });
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error?.rpc).toEqual({
      code: -32004,
      message: 'Contact not found',
      data: { id: 3 },
    });
  });
});

describe('paramFilePaths: the files the CLI reads before parsing (with the grammar)', () => {
  it('names each @file of key=@file and key:=@file once, nothing else', () => {
    expect(paramFilePaths(['a=@x', 'b:=@x', 'c=@', 'd=@y', 'e=v', 'f:=1', '@g'])).toEqual([
      'x',
      'y',
    ]);
    expect(paramFilePaths(['-'])).toEqual([]);
    expect(paramFilePaths(['{"a":"@x"}'])).toEqual([]);
    expect(paramFilePaths(['a=b=@c'])).toEqual([]);
  });
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
