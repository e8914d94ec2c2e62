import type { ServiceOptions } from '../../service-options.js';
import { closeSync, constants, createReadStream, open, openSync, statSync } from 'node:fs';
import { Socket } from 'node:net';
import { jsonSyntaxProblem } from '../../../util/json-error.js';
import { InterruptedError, ServiceError, UsageError } from '../../../errors.js';
import { buildCall, rpcErrorFrom, type ApiAnswer } from '../../../rpc/jsonrpc.js';
import { paramFilePaths, parseParams, stringItems } from '../../../rpc/params.js';
import { openClient, readAll, type CliDeps } from '../../context.js';
import type { Input } from '../../io.js';
import { typedParamHint, unknownMethodHint } from '../../method-hint.js';
import { stdoutAnswered } from '../../output.js';

/** Options of `dasvc rpc` (SPEC §3): the positional arguments and the flags. */
export interface RpcOptions extends ServiceOptions {
  scope: string;
  method: string | undefined;
  /** The positional params items (`--params` is the OAuth parameter placement). */
  paramItems: string[];
  id?: string;
  notify?: boolean;
  raw?: boolean;
  batch?: string;
  token?: string;
}

/** The most a params file, the batch or stdin may hold: far past any JSON-RPC call. */
const INPUT_LIMIT = 64 * 1024 * 1024;

/**
 * Reads a file, or stdin for `-`, asynchronously and bounded: a FIFO or `/dev/stdin` that never
 * ends still gives way to Ctrl-C (a synchronous read held the event loop, and the signal), and
 * `/dev/zero` ends as a usage error instead of filling memory.
 */
async function readText(deps: CliDeps, path: string, what: string): Promise<string> {
  try {
    const input = path === '-' ? deps.stdin : await fileInput(path, deps.signal);
    return await readAll(input, deps.signal, INPUT_LIMIT);
  } catch (error) {
    if (error instanceof InterruptedError) throw error;
    throw new UsageError(
      `cannot read ${what} ${path === '-' ? 'from stdin' : path}: ${(error as Error).message}`,
      { code: 'bad_params' },
    );
  }
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

/** The text of every file the params items name (SPEC §3 `key=@file`, `key:=@file`). */
async function paramFiles(items: readonly string[], deps: CliDeps): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const path of paramFilePaths(items))
    files.set(path, await readText(deps, path, `the params file`));
  return files;
}

function parseId(value: unknown): number {
  if (value === undefined) return 1;
  // Decimal digits only: Number() also reads '' as 0 and '0x10' or '1e3' as other numbers.
  const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n))
    throw new UsageError(`--id must be an integer, got ${JSON.stringify(value)}`, {
      code: 'bad_id',
    });
  return n;
}

/** The request body: one call from the params grammar, or the batch array from --batch. */
async function buildBody(options: RpcOptions, deps: CliDeps): Promise<unknown> {
  const flags = options;
  if (flags.batch !== undefined) {
    if (options.method !== undefined)
      throw new UsageError(
        '--batch takes the calls from the file; leave out the method and params',
        { code: 'bad_flags' },
      );
    for (const [flag, set] of [
      ['--id', flags.id !== undefined],
      ['--notify', Boolean(flags.notify)],
    ] as const) {
      if (set)
        throw new UsageError(`${flag} cannot be combined with --batch: the file gives each call`, {
          code: 'bad_flags',
        });
    }
    const text = await readText(deps, String(flags.batch), 'the batch');
    let batch: unknown;
    try {
      batch = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`the batch is not valid JSON: ${jsonSyntaxProblem(error)}`, {
        code: 'bad_params',
      });
    }
    if (!Array.isArray(batch))
      throw new UsageError('the batch must be a JSON array of JSON-RPC requests', {
        code: 'bad_params',
      });
    return batch;
  }
  if (options.method === undefined)
    throw new UsageError('missing method: dasvc rpc <scope> <method> [params...]', {
      code: 'missing_method',
    });
  const id = parseId(flags.id);
  const stdin = options.paramItems.length === 1 && options.paramItems[0] === '-';
  const stdinText = stdin ? await readText(deps, '-', 'params') : '';
  const files = await paramFiles(options.paramItems, deps);
  const params = parseParams(options.paramItems, {
    readFile: (path) => files.get(path)!,
    readStdin: () => stdinText,
  });
  return buildCall(options.method, params, id, Boolean(flags.notify));
}

/**
 * `dasvc rpc` (SPEC §3): one call or a batch to the scope's API URL with the bearer token; the
 * client takes it from --token/DASVC_TOKEN (no store) or the profile, refreshed first when due, and
 * refreshed once more if the API refuses it (another process may have rotated it, or its expiry was
 * unknown). Settings are checked first; then the body; then whether the profile is logged in.
 */
export async function run(options: RpcOptions, deps: CliDeps): Promise<void> {
  // The positional scope is the instance called, not the scope setting of a login.
  const client = openClient({ ...options, scope: undefined }, deps);
  const body = await buildBody(options, deps);
  const answer = await client.send(options.scope, body);
  const hint =
    (await unknownMethodHint(answer, options.scope, options.method, () =>
      client.send(options.scope, buildCall('rpc.discover', undefined, 1)),
    )) ?? typedParamHint(answer, stringItems(options.paramItems));
  report(answer, Boolean(options.raw), deps, hint, Array.isArray(body));
}

/**
 * Prints the answer (SPEC §3): `result`, the whole response with --raw, the array for a batch. A
 * JSON-RPC error is thrown for main to print (`error <code>: <message>`, exit 1).
 */
function report(
  answer: ApiAnswer,
  raw: boolean,
  deps: CliDeps,
  hint: string | undefined,
  batch: boolean,
): void {
  if (answer.kind === 'none') {
    // A batch of notifications has the array of its responses, none (SPEC §3: --batch prints the
    // array). One notification has no answer; --json still prints one JSON document.
    if (batch) deps.out.result([]);
    else if (deps.out.json) deps.out.result(null);
    return;
  }
  const response = answer.body;
  if (Array.isArray(response)) {
    deps.out.result(response);
    const failed = response.filter((item) => rpcErrorFrom(item) !== undefined).length;
    if (failed > 0) {
      throw stdoutAnswered(
        new ServiceError(
          `${failed} of ${response.length} calls in the batch answered with an error`,
          { code: 'batch_error' },
        ),
      );
    }
    return;
  }
  const error = rpcErrorFrom(response, hint);
  if (raw) deps.out.result(response);
  if (error) throw raw ? stdoutAnswered(error) : error;
  if (!raw) deps.out.result((response as { result?: unknown }).result ?? null);
}
