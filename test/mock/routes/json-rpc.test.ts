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
