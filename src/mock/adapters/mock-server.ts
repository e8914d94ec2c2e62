import type { MockOptions } from '../core/types.js';
import { createMockCore } from '../core/mock-core.js';
import { parseServerTimeouts, serveNode } from './node-server.js';

/** A running mock server. */
export interface MockServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  close(): Promise<void>;
  /** The client to show first: `demo-client` when the fixtures have it. */
  demoClient?: { id: string; secret: string | undefined };
  /** `alice (crm, wiki), bob (crm)`: who may approve, and where. */
  users?: string;
}

function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Starts the mock on node:http (`dasvc mock`). Fixtures, handler modules and the state file are
 * loaded before listening, so a broken one is a startup error naming the file; the routes load
 * just after, while the caller announces the URL.
 */
export async function startMockServer(options: MockOptions = {}): Promise<MockServer> {
  const timeouts = parseServerTimeouts(options);
  const core = createMockCore(options);
  await core.ready();
  const host = options.host ?? '127.0.0.1';
  const served = await serveNode(core.handle, host, options.port ?? 8080, timeouts);
  // setImmediate: after the caller's synchronous "listening on" line, not before it.
  setImmediate(() => core.warm().catch(() => undefined));
  const clients = core.ctx.fixtures.clients;
  const demoClient = clients.get('demo-client') ?? clients.values().next().value;
  const users = [...core.ctx.fixtures.users.values()]
    .map((u) => `${u.id} (${[...u.instances].join(', ')})`)
    .join(', ');
  return {
    url: `http://${urlHost(host)}:${served.port}`,
    ...(demoClient ? { demoClient } : {}),
    users,
    close: async () => {
      await served.close();
      await core.close();
    },
  };
}
