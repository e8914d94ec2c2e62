import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/** A forward proxy on 127.0.0.1, for the file's tests: its URL and how many tunnels it opened. */
export interface ForwardProxy {
  url: string;
  tunnels: number;
}

/**
 * Starts, before the file's tests, a forward proxy that tunnels CONNECT (as undici's ProxyAgent
 * asks) and counts the tunnels; closes it, tunnels included, after them.
 */
export function forwardProxyForFile(): ForwardProxy {
  const proxy: ForwardProxy = { url: '', tunnels: 0 };
  const server = createServer((_req, res) => res.writeHead(405).end());
  const tunnelSockets = new Set<{ destroy(): void }>();
  server.on('connect', (req, client, head) => {
    proxy.tunnels += 1;
    tunnelSockets.add(client);
    const [host, port] = (req.url ?? '').split(':');
    const target = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      target.write(head);
      target.pipe(client).pipe(target);
    });
    target.on('error', () => client.destroy());
    client.on('error', () => target.destroy());
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    // Tunnels are upgraded sockets, which closeAllConnections() does not see.
    for (const socket of tunnelSockets) socket.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return proxy;
}
