import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';

/** A fetch-style app served on 127.0.0.1. */
export interface ServedApp {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves a fetch-style app (the mock app, or one wrapping it) on 127.0.0.1: an installation that
 * differs from the mock in one answer. Answer bodies stream as they are made (with back-pressure;
 * a client that hangs up ends them). `close()` ends its connections too.
 */
export async function serveApp(app: (request: Request) => Promise<Response>): Promise<ServedApp> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2)
      headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const response = await app(
      new Request(`${url}${req.url ?? '/'}`, {
        method: req.method ?? 'GET',
        headers,
        ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
      }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) return void res.end();
    // The DOM's ReadableStream type and node's name the same class.
    const body = response.body as unknown as NodeReadableStream<Uint8Array>;
    await pipeline(Readable.fromWeb(body), res).catch(() => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
