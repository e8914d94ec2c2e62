// A recorded folder served in-process (SPEC §6 replay), with a token of its recorded user.
import { createMockApp } from '../../src/mock/index.js';

/** A JSON-RPC answer as the replay gives it. */
export interface ReplayAnswer {
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export interface Replay {
  /** One call of `method` on `instance` with `params`; the answer's body. */
  call(instance: string, method: string, params?: unknown): Promise<ReplayAnswer>;
  close(): Promise<void>;
}

/** `--fixtures dir` as an app, and a token of `user` for `scope`. */
export async function replayOf(dir: string, scope: string, user = 'recorded'): Promise<Replay> {
  const app = createMockApp({ fixtures: dir });
  const minted = await app(
    new Request('http://replay.test/_mock/tokens', {
      method: 'POST',
      body: JSON.stringify({ user, scope }),
    }),
  );
  const { access_token: token } = (await minted.json()) as { access_token: string };
  return {
    call: async (instance, method, params) => {
      const res = await app(
        new Request(`http://replay.test/webservice/json/${instance}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          body: JSON.stringify({ jsonrpc: '2.0', method, id: 1, ...(params ? { params } : {}) }),
        }),
      );
      return (await res.json()) as ReplayAnswer;
    },
    close: () => app.close(),
  };
}
