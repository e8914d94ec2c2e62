import { Readable } from 'node:stream';
import type { MockRequest, MockResponse } from '../core/types.js';
import { BodyTooLargeError } from '../core/types.js';
import { INTERNAL_ERROR_BODY, JSON_TYPE } from '../core/responses.js';
import { readBounded } from '../../util/bounded-bytes.js';

/** Reads a fetch body, refusing past `limit` bytes (checked on Content-Length and while streaming). */
async function readLimited(request: Request, limit: number): Promise<Buffer> {
  const declared = Number(request.headers.get('content-length'));
  if (declared > limit) throw new BodyTooLargeError(limit);
  if (!request.body) return Buffer.alloc(0);
  // Drained, not cancelled: msw's interceptor never settles a request whose body reader was
  // cancelled half-way, and these bodies are in memory already (this adapter is in-process only).
  return readBounded(request.body, limit, () => new BodyTooLargeError(limit), { drain: true });
}

/** A fetch Request as the core sees it. */
export function fromFetchRequest(request: Request): MockRequest {
  const url = new URL(request.url);
  let body: Promise<Buffer> | undefined;
  let received: Buffer | undefined;
  const bytes = (limit: number) =>
    (body ??= readLimited(request, limit).then((read) => (received = read)));
  return {
    method: request.method,
    path: url.pathname,
    query: url.search.slice(1),
    origin: url.origin,
    header: (name) => request.headers.get(name) ?? undefined,
    text: (limit) => bytes(limit).then((read) => read.toString('utf8')),
    bytes,
    get receivedBody() {
      return received;
    },
    rawHeaders: () => [...request.headers].flat(),
  };
}

/**
 * The core's answer as a fetch Response; a dropped connection is a network error. An answer
 * that fetch refuses to build (a header value it rejects) becomes a JSON 500, never a rejection.
 * The answer to a HEAD request has no body, as node:http sends it (the headers stay).
 */
export function toFetchResponse(response: MockResponse, method = 'GET'): Response {
  if (response.drop) return Response.error();
  const head = method === 'HEAD';
  const empty = head || response.status === 204 || response.status === 304 || response.body === '';
  if (response.stream) return streamed(response, response.stream, head);
  try {
    return new Response(empty ? null : response.body, {
      status: response.status,
      headers: response.headers,
    });
  } catch {
    return internalError();
  }
}

/** A proxied answer: headers as received, the body streamed on. */
function streamed(
  response: MockResponse,
  stream: NonNullable<MockResponse['stream']>,
  head: boolean,
): Response {
  const noBody = head || response.status === 204 || response.status === 304;
  const source = stream instanceof Readable ? stream : Readable.from(stream);
  // A body not passed on is not read either: the upstream exchange ends now.
  if (noBody && stream instanceof Readable) stream.destroy();
  try {
    return new Response(noBody ? null : (Readable.toWeb(source) as ReadableStream), {
      status: response.status,
      ...(response.statusMessage === undefined ? {} : { statusText: response.statusMessage }),
      headers: headerPairs(response.rawHeaders ?? []),
    });
  } catch {
    source.destroy();
    return internalError();
  }
}

/** A flat raw header list (`name, value, …`) as the pairs fetch takes. */
function headerPairs(raw: string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) pairs.push([raw[i]!, raw[i + 1]!]);
  return pairs;
}

/** JSON 500, as node-server answers when writing fails. */
export function internalError(): Response {
  return new Response(INTERNAL_ERROR_BODY, {
    status: 500,
    headers: { 'content-type': JSON_TYPE },
  });
}
