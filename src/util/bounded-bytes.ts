// One way to read a body of unknown length without letting it fill memory: the mock's request
// bodies, the CLI's params files and stdin, and every HTTP answer the CLI and the library read.

/** Bytes gathered up to `limit`, counted as they arrive. */
export class BoundedBytes {
  private readonly chunks: Uint8Array[] = [];
  /** Bytes seen so far, those past the limit included. */
  size = 0;

  constructor(readonly limit: number) {}

  /** Keeps `chunk`; false, and nothing more kept, once the total passes the limit. */
  add(chunk: Uint8Array): boolean {
    this.size += chunk.byteLength;
    if (this.size > this.limit) return false;
    this.chunks.push(chunk);
    return true;
  }

  /** What was kept, as one buffer. */
  bytes(): Buffer {
    const only = this.chunks.length === 1 ? this.chunks[0]! : undefined;
    if (only && Buffer.isBuffer(only)) return only;
    return Buffer.concat(this.chunks);
  }
}

/** A fetch body's chunks; left early, the stream is cancelled (and its request with it). */
async function* webChunks(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield value;
    }
    finished = true;
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/**
 * Reads `source` to its end, keeping at most `limit` bytes: past it, rejects with `tooLarge()`.
 * The source is left at once (a stream is then destroyed or cancelled), unless `drain`: then it
 * is read to its end without keeping the rest (for a source that must finish, as msw's).
 */
export async function readBounded(
  source: AsyncIterable<Uint8Array | string> | ReadableStream<Uint8Array>,
  limit: number,
  tooLarge: () => Error,
  options: { drain?: boolean } = {},
): Promise<Buffer> {
  const body = new BoundedBytes(limit);
  let over = false;
  const chunks = source instanceof ReadableStream ? webChunks(source) : source;
  for await (const chunk of chunks) {
    if (over) continue;
    if (body.add(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) continue;
    if (!options.drain) throw tooLarge();
    over = true;
  }
  if (over) throw tooLarge();
  return body.bytes();
}

/** A byte count as people read it: `64 MiB`, `512 KiB`, else in bytes. */
export function sizeText(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', 2 ** 30],
    ['MiB', 2 ** 20],
    ['KiB', 2 ** 10],
  ] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return `${bytes} bytes`;
}
