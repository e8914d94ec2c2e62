import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import {
  buildApiRequest,
  buildCall,
  processApiResponse,
  rpcErrorFrom,
} from '../../src/rpc/jsonrpc.js';
import { parseParams } from '../../src/rpc/params.js';
import { AuthError, NetworkError, ServiceError } from '../../src/errors.js';

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
    try {
      processApiResponse(res(403, ''), 'wiki');
    } catch (error) {
      expect((error as AuthError).hint).toBe('dasvc login --scope wiki');
    }
    expect(() => processApiResponse(res(404, 'nope'), 'x')).toThrow(ServiceError);
    expect(() => processApiResponse(res(500, ''), 'x')).toThrow(ServiceError);
    expect(() => processApiResponse(res(200, '<html>'), 'x')).toThrow(NetworkError);
    expect(processApiResponse(res(204, ''), 'x')).toEqual({ kind: 'none' });
    expect(processApiResponse(res(200, '{"jsonrpc":"2.0","result":1,"id":1}'), 'x')).toEqual({
      kind: 'json',
      body: { jsonrpc: '2.0', result: 1, id: 1 },
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
