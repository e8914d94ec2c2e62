import { describe, expect, it } from 'vitest';
import { processJsonRpc, serialiseRpc } from '../../../src/mock/routes/json-rpc.js';

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

describe('static JSON-RPC results serialised once give the same body', () => {
  it('single and batch', async () => {
    const result = { list: [1, 'two', { three: null }] };
    const invoke = () => ({ result, json: JSON.stringify(result) });
    const one = await processJsonRpc('{"jsonrpc":"2.0","method":"m","id":"x"}', invoke);
    expect(serialiseRpc(one)).toBe(JSON.stringify({ jsonrpc: '2.0', result, id: 'x' }));
    const batch = await processJsonRpc(
      '[{"jsonrpc":"2.0","method":"m","id":1},{"jsonrpc":"2.0","method":"m"},{"jsonrpc":"1"}]',
      invoke,
    );
    expect(serialiseRpc(batch)).toBe(JSON.stringify(batch));
  });
});

describe('an id a double would change is answered as it was sent', () => {
  const body = async (text: string, invoke: Parameters<typeof processJsonRpc>[1]) =>
    serialiseRpc(await processJsonRpc(text, invoke));
  const plain = async (method: string) =>
    method === 'ok' ? { result: 1 } : { error: { code: -32601, message: 'Method not found' } };
  const fixed = () => ({ result: [1], json: '[1]' });

  it('a 64-bit id, in a result, an error and a static result', async () => {
    const id = '12345678901234567891';
    expect(await body(`{"jsonrpc":"2.0","method":"ok","id":${id}}`, plain)).toBe(
      `{"jsonrpc":"2.0","result":1,"id":${id}}`,
    );
    expect(await body(`{"jsonrpc":"2.0","method":"nope","id":-${id}}`, plain)).toBe(
      `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":-${id}}`,
    );
    expect(await body(`{"jsonrpc":"2.0","method":"m","id":${id}}`, fixed)).toBe(
      `{"jsonrpc":"2.0","result":[1],"id":${id}}`,
    );
  });

  it('in a batch, beside ids a double holds, and on an invalid request', async () => {
    const text =
      '[{"jsonrpc":"2.0","method":"ok","id":9007199254740993},' +
      '{"jsonrpc":"2.0","method":"ok","id":7,"params":{"n":12345678901234567891}},' +
      '{"jsonrpc":"1.0","method":"ok","id":1e400},' +
      '{"jsonrpc":"2.0","method":"ok","id":0.10000000000000000001}]';
    const answers = (await body(text, plain)).split('},{');
    expect(answers[0]).toMatch(/"id":9007199254740993$/);
    expect(answers[1]).toMatch(/"id":7$/);
    expect(answers[2]).toContain('"code":-32600');
    expect(answers[2]).toMatch(/"id":1e400$/);
    expect(answers[3]).toMatch(/"id":0.10000000000000000001}]$/);
  });

  it('params keep reaching the method as JSON.parse reads them', async () => {
    let seen: unknown;
    await processJsonRpc(
      '{"jsonrpc":"2.0","method":"m","params":[12345678901234567891],"id":1}',
      (_m, params) => {
        seen = params;
        return { result: null };
      },
    );
    expect(seen).toEqual([Number('12345678901234567891')]);
  });
});
