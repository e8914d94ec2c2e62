import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MockApp } from '../../src/mock/index.js';
import { scratchDir } from './scratch.js';

/**
 * A fixtures folder (removed at the file's end) of one OpenRPC instance, `instance`, whose
 * document is `doc`: user `u` may reach it, client `c` has the secret `s`.
 */
export function openRpcFolder(instance: string, doc: unknown): string {
  const dir = scratchDir(`dasvc-${instance}-`);
  mkdirSync(join(dir, 'instances'));
  writeFileSync(join(dir, 'clients.txt'), 'c:s\n');
  writeFileSync(join(dir, 'users.json'), JSON.stringify({ u: { instances: [instance] } }));
  writeFileSync(join(dir, 'instances', `${instance}.openrpc.json`), JSON.stringify(doc, null, 2));
  return dir;
}

/** An access token of user `u` for `scope` at the mock `app` (its control API). */
export async function bearerOf(app: MockApp, scope: string, base: string): Promise<string> {
  const minted = await app(
    new Request(`${base}/_mock/tokens`, {
      method: 'POST',
      body: JSON.stringify({ user: 'u', scope }),
    }),
  );
  return ((await minted.json()) as { access_token: string }).access_token;
}

/** One JSON-RPC call of `method` to `scope` at the mock `app`, as user `u`: the answer's body. */
export async function callAt(
  app: MockApp,
  scope: string,
  method: string,
  params: unknown,
  base: string,
): Promise<Record<string, unknown>> {
  const res = await app(
    new Request(`${base}/webservice/json/${scope}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await bearerOf(app, scope, base)}` },
      body: JSON.stringify({ jsonrpc: '2.0', method, id: 1, ...(params ? { params } : {}) }),
    }),
  );
  return (await res.json()) as Record<string, unknown>;
}
