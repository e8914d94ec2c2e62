import { describe, expect, it } from 'vitest';
import { AuthError, NetworkError, sameKind, snakeCode, UsageError } from '../src/errors.js';
import { JsonRpcError } from '../src/rpc/jsonrpc.js';

describe('sameKind: a failure retold with more context', () => {
  it('keeps the kind, code, status and detail of the error it retells', () => {
    const first = new AuthError('refused', { code: 'invalid_token', status: 401, detail: 'no' });
    const retold = sameKind(first, 'the token was refused');
    expect(retold).toBeInstanceOf(AuthError);
    expect(retold).toMatchObject({
      message: 'the token was refused',
      kind: 'auth',
      exitCode: 3,
      code: 'invalid_token',
      status: 401,
      detail: 'no',
    });
  });

  it('keeps a JSON-RPC error its class and its error object', () => {
    const first = JsonRpcError.of({
      code: -32602,
      message: 'id must be integer',
      data: { at: 'id' },
    });
    const retold = sameKind(first, 'contacts.get refused its params');
    expect(retold).toBeInstanceOf(JsonRpcError);
    expect(retold).toMatchObject({
      message: 'contacts.get refused its params',
      kind: 'service',
      exitCode: 1,
      code: 'jsonrpc_error',
      detail: { at: 'id' },
      rpc: { code: -32602, message: 'id must be integer', data: { at: 'id' } },
    });
  });

  it("keeps the error's facts, the caller's added and winning where both name one", () => {
    const first = new NetworkError('refused', {
      code: 'connection_refused',
      facts: { host: 'example.test', during: 'login' },
    });
    const retold = sameKind(first, 'retold', { facts: { during: 'check', profile: 'work' } });
    expect(retold.facts).toEqual({ host: 'example.test', during: 'check', profile: 'work' });
    // The error retold is left as it was.
    expect(first.facts).toEqual({ host: 'example.test', during: 'login' });
  });

  it('keeps the facts when the caller gives none, and gives none when neither has any', () => {
    const first = new UsageError('bad', { code: 'bad_fixture', facts: { folder: 'fx' } });
    expect(sameKind(first, 'bad').facts).toEqual({ folder: 'fx' });
    expect(sameKind(new UsageError('bad'), 'bad').facts).toEqual({});
  });
});

describe('codes in one naming style (SPEC §4), the library as the CLI', () => {
  it("keeps every code in snake_case, a service's own error string too", () => {
    expect(snakeCode('commander.unknownCommand')).toBe('commander_unknown_command');
    expect(new AuthError('x', { code: 'invalid_grant' }).code).toBe('invalid_grant');
    expect(new AuthError('x', { code: 'Bad-Gateway Thing' }).code).toBe('bad_gateway_thing');
    expect(new AuthError('x', { code: 'invalidGrant' }).code).toBe('invalid_grant');
    expect(new AuthError('x', { code: '--' }).code).toBe('error');
    expect(new AuthError('x').code).toBeUndefined();
  });
});
