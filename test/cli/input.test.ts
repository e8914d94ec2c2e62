// The lines a login reads pasted redirects from (src/cli/input.ts): split as a terminal or a pipe
// sends them, and bounded, so that a stream with no line end fills no memory.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LINE_TOO_LONG, PASTED_LINE_LIMIT, stdinLines } from '../../src/cli/input.js';

/**
 * The lines of what `write` sends, once the stream ends: each write a chunk of its own, as a pipe
 * may deliver them (a PassThrough would merge writes made before it is read).
 */
async function linesOf(write: (stream: { write(chunk: string): void }) => void): Promise<string[]> {
  const chunks: string[] = [];
  write({ write: (chunk) => void chunks.push(chunk) });
  const { lines, release } = stdinLines(Readable.from(chunks));
  const out: string[] = [];
  for await (const line of lines) out.push(line);
  release();
  return out;
}

describe('stdinLines', () => {
  it('splits lines across chunks, CRLF or LF, and keeps a last line with no end', async () => {
    const lines = await linesOf((s) => {
      for (const chunk of ['http://a/cb?co', 'de=1\r', '\n\nsecond\nthi', 'rd']) s.write(chunk);
    });
    expect(lines).toEqual(['http://a/cb?code=1', '', 'second', 'third']);
  });

  it('a line past the limit is one LINE_TOO_LONG, and the lines after it are read', async () => {
    const lines = await linesOf((s) => {
      s.write('x'.repeat(PASTED_LINE_LIMIT));
      s.write('\nexact\n');
      for (let i = 0; i < 40; i++) s.write('y'.repeat(16 * 1024));
      s.write('\nafter\n');
      s.write('z'.repeat(PASTED_LINE_LIMIT + 1));
    });
    expect(lines).toEqual([
      'x'.repeat(PASTED_LINE_LIMIT),
      'exact',
      LINE_TOO_LONG,
      'after',
      LINE_TOO_LONG,
    ]);
  });

  it('reads through more than a string can hold, with no line end, to the line after it', async () => {
    // 600 MiB with no line end: kept, it would pass V8's longest string and throw.
    const chunk = 'z'.repeat(1024 * 1024);
    async function* endless() {
      for (let i = 0; i < 600; i++) yield chunk;
      yield '\nhttp://127.0.0.1:9/callback?code=c&state=s\n';
    }
    const { lines, release } = stdinLines(Readable.from(endless(), { objectMode: false }));
    const read: string[] = [];
    for await (const line of lines) read.push(line);
    release();
    expect(read).toEqual([LINE_TOO_LONG, 'http://127.0.0.1:9/callback?code=c&state=s']);
  });
});
