import type { ServiceOptions } from '../../service-options.js';
import { jsonSyntaxProblem } from '../../../util/json-error.js';
import { InterruptedError, ServiceError, UsageError } from '../../../errors.js';
import { buildCall, rpcErrorFrom, type ApiAnswer } from '../../../rpc/jsonrpc.js';
import { parseExact } from '../../../util/exact-numbers.js';
import { paramFilePaths, parseParams, stringItems } from '../../../rpc/params.js';
import { openClient, type CliDeps } from '../../context.js';
import { readInput } from '../../input.js';
import { typedParamHint, unknownMethodHint } from '../../hints/method-hint.js';
import { withTokenWayIn } from '../../hints/token-way-in.js';
import { stdoutAnswered } from '../../output.js';
import { shellWord } from '../../shell-word.js';
import { fileProblem } from '../../../util/file-problem.js';

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

/** A params file, the batch or stdin (`-`) as text; what cannot be read is a usage error. */
async function readText(deps: CliDeps, path: string, what: string): Promise<string> {
  try {
    return await readInput(path, deps.stdin, deps.signal, INPUT_LIMIT);
  } catch (error) {
    if (error instanceof InterruptedError) throw error;
    throw new UsageError(
      `cannot read ${what} ${path === '-' ? 'from stdin' : path}: ${fileProblem(error)}`,
      { code: 'bad_params' },
    );
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
      batch = parseExact(text);
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
      hint: `dasvc rpc ${shellWord(options.scope)} rpc.discover lists the methods of the instance`,
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
  const answer = await client.send(options.scope, body).catch((error: unknown) => {
    throw withTokenWayIn(error);
  });
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
  // What is printed keeps every number as the service wrote it (parseExact).
  const shown = parseExact(answer.text, { value: response }) as typeof response;
  if (Array.isArray(response)) {
    deps.out.result(shown);
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
  if (raw) deps.out.result(shown);
  if (error) throw raw ? stdoutAnswered(error) : error;
  if (!raw) deps.out.result((shown as { result?: unknown }).result ?? null);
}
