import { closeSync, constants, createReadStream, open, openSync, statSync } from 'node:fs';
import { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { InterruptedError, UsageError } from '../errors.js';
import { readBounded, sizeText } from '../util/bounded-bytes.js';
import type { Input } from './io.js';

// Every read of what a person gives a command as input: stdin (piped, or pasted lines) and the
// files named on the command line, FIFOs included. Each gives way to Ctrl-C (`signal`).

/** The longest pasted line kept: a redirect URL is a few hundred characters, a long one a few KiB. */
export const PASTED_LINE_LIMIT = 64 * 1024;

/**
 * What stands for a line past PASTED_LINE_LIMIT: no redirect, so the reader says so, while the
 * line itself is not kept (a stream with no line end, `/dev/zero`, would fill memory).
 */
export const LINE_TOO_LONG = `(a line longer than ${PASTED_LINE_LIMIT / 1024} KiB)`;

/** The lines of a text stream, each at most PASTED_LINE_LIMIT characters (LINE_TOO_LONG else). */
async function* boundedLines(stream: Readable): AsyncGenerator<string> {
  let line = '';
  let tooLong = false;
  stream.setEncoding('utf8');
  for await (const chunk of stream as AsyncIterable<string>) {
    const parts = chunk.split('\n');
    const rest = parts.pop()!;
    for (const part of parts) {
      const whole = line + part;
      yield tooLong || whole.length > PASTED_LINE_LIMIT ? LINE_TOO_LONG : whole.replace(/\r$/, '');
      line = '';
      tooLong = false;
    }
    if (tooLong) continue;
    if (line.length + rest.length > PASTED_LINE_LIMIT) {
      line = '';
      tooLong = true;
    } else line += rest;
  }
  if (tooLong) yield LINE_TOO_LONG;
  else if (line !== '') yield line.replace(/\r$/, '');
}

/**
 * The lines typed or piped on stdin (a pasted redirect URL), and how to let go of stdin after:
 * process.stdin would otherwise keep the process alive.
 */
export function stdinLines(input: Input): { lines: AsyncIterable<string>; release(): void } {
  const stream = input instanceof Readable ? input : Readable.from(input);
  // Nothing is read before the reader asks: a redirect URL piped in (or pasted) while the login
  // still starts waits in the stream, and is the first line then.
  const iterator = boundedLines(stream);
  return {
    lines: { [Symbol.asyncIterator]: () => iterator },
    release: () => stream.destroy(),
  };
}

/**
 * The lines a login reads pasted redirects from, while the browser is waited for too: a pipe from
 * the start; a terminal opened only when the login starts waiting, since a prompt for a missing
 * setting reads it before.
 */
export function pastedRedirects(input: Input): { lines: AsyncIterable<string>; release(): void } {
  if (input.isTTY !== true) return stdinLines(input);
  let opened: ReturnType<typeof stdinLines> | undefined;
  return {
    lines: {
      [Symbol.asyncIterator]: () => (opened ??= stdinLines(input)).lines[Symbol.asyncIterator](),
    },
    release: () => opened?.release(),
  };
}

/**
 * The text of a file, or of stdin for `-` (params, `--batch`), read asynchronously and bounded: a
 * FIFO or `/dev/stdin` that never ends still gives way to Ctrl-C (a synchronous read would hold
 * the event loop, and the signal), and `/dev/zero` ends as a usage error (`too_large`) instead of
 * filling memory.
 */
export async function readInput(
  path: string,
  stdin: Input,
  signal: AbortSignal,
  /** More bytes than this is a usage error. */
  limit: number,
): Promise<string> {
  const input = path === '-' ? stdin : await fileInput(path, signal);
  return readAll(input, signal, limit);
}

/**
 * A file to read. A FIFO (`mkfifo`, `<(cmd)`, `/dev/stdin` on a pipe) is opened off the event loop,
 * since its open waits for a writer, and read as a pipe: a pool thread blocked in its open or
 * read would hold the process after Ctrl-C (node joins them at exit). Ctrl-C releases a waiting
 * open by opening the writing end once.
 */
async function fileInput(path: string, signal: AbortSignal): Promise<Input> {
  if (!statSync(path).isFIFO()) return createReadStream(path);
  if (signal.aborted) throw new InterruptedError('interrupted while reading its input');
  const release = () => {
    try {
      closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // No open is waiting any more.
    }
  };
  signal.addEventListener('abort', release, { once: true });
  try {
    const fd = await new Promise<number>((resolve, reject) =>
      open(path, 'r', (error, opened) => (error ? reject(error) : resolve(opened))),
    );
    if (signal.aborted) {
      closeSync(fd);
      throw new InterruptedError('interrupted while reading its input');
    }
    return new Socket({ fd, readable: true, writable: false });
  } finally {
    signal.removeEventListener('abort', release);
  }
}

/** Reads all of `input` as text; Ctrl-C (`signal`) ends the wait. */
async function readAll(input: Input, signal: AbortSignal, limit: number): Promise<string> {
  // Past the limit the input is left at once (a stream is destroyed).
  const read = readBounded(
    input,
    limit,
    () => new UsageError(`more than ${sizeText(limit)}`, { code: 'too_large' }),
  );
  let onAbort = () => undefined as void;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => {
      (input as { destroy?: () => void }).destroy?.();
      reject(new InterruptedError('interrupted while reading its input'));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([read, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  return (await read).toString('utf8');
}
