import { readFileSync } from 'node:fs';
import { AuthError, ServiceError, UsageError } from '../../errors.js';
import { apiUrlFor } from '../../oauth/endpoints.js';
import {
  buildApiRequest,
  buildCall,
  processApiResponse,
  rpcErrorFrom,
  type ApiAnswer,
} from '../../rpc/jsonrpc.js';
import { parseParams } from '../../rpc/params.js';
import type { Profile } from '../../store/profile-store.js';
import { currentTokens } from '../../store/session.js';
import type { CliContext } from '../context.js';
import { endpointOrMissing, pickSetting, resolveEndpoints, SETTINGS } from '../settings.js';
import { baseUrlOf, loadProfile, sessionDeps, type ProfileView } from './common.js';

/** Positional arguments of `dasvc rpc`. */
export interface RpcArgs {
  scope: string;
  method: string | undefined;
  params: string[];
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read ${what} ${path === '-' ? 'from stdin' : path}: ${(error as Error).message}`,
      { code: 'bad_params' },
    );
  }
}

function parseId(value: unknown): number {
  if (value === undefined) return 1;
  const n = Number(value);
  if (!Number.isSafeInteger(n))
    throw new UsageError(`--id must be an integer, got ${JSON.stringify(value)}`, {
      code: 'bad_id',
    });
  return n;
}

/** The request body: one call from the params grammar, or the batch array from --batch. */
function buildBody(args: RpcArgs, flags: CliContext['flags']): unknown {
  if (flags.batch !== undefined) {
    if (args.method !== undefined)
      throw new UsageError(
        '--batch takes the calls from the file; leave out the method and params',
        { code: 'bad_flags' },
      );
    const text = readText(String(flags.batch), 'the batch');
    let batch: unknown;
    try {
      batch = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`the batch is not valid JSON: ${(error as Error).message}`, {
        code: 'bad_params',
      });
    }
    if (!Array.isArray(batch))
      throw new UsageError('the batch must be a JSON array of JSON-RPC requests', {
        code: 'bad_params',
      });
    return batch;
  }
  if (args.method === undefined)
    throw new UsageError('missing method: dasvc rpc <scope> <method> [params...]', {
      code: 'missing_method',
    });
  const params = parseParams(args.params, {
    readFile: (path) => readFileSync(path, 'utf8'),
    readStdin: () => readText('-', 'params'),
  });
  return buildCall(args.method, params, parseId(flags.id), Boolean(flags.notify));
}

/**
 * `dasvc rpc` (SPEC §3): one call or a batch to the scope's API URL with the bearer token; the token
 * comes from --token/DASVC_TOKEN (no store) or the profile, refreshed first when due, and refreshed
 * once more if the API refuses it (another process may have rotated it, or its expiry was unknown).
 */
export async function rpcRun(args: RpcArgs, ctx: CliContext): Promise<void> {
  const body = buildBody(args, ctx.flags);
  const explicit = pickSetting(SETTINGS.token, ctx.flags, ctx.env, undefined)?.value;
  let view: ProfileView | undefined;
  let profile: Profile | undefined;
  const needProfile =
    explicit === undefined ||
    (!pickSetting(SETTINGS.apiUrl, ctx.flags, ctx.env, undefined) &&
      !pickSetting(SETTINGS.baseUrl, ctx.flags, ctx.env, undefined));
  if (needProfile) {
    view = loadProfile(ctx);
    profile = view.profile;
  }
  const endpoints = resolveEndpoints(baseUrlOf(ctx, profile), ctx.flags, ctx.env, profile);
  const url = apiUrlFor(endpointOrMissing(endpoints, 'api'), args.scope);

  let answer: ApiAnswer;
  if (explicit !== undefined) {
    answer = processApiResponse(await ctx.send(buildApiRequest(url, explicit, body)), args.scope);
  } else {
    const deps = sessionDeps(ctx, view!);
    const { tokens } = await currentTokens(deps);
    try {
      answer = processApiResponse(
        await ctx.send(buildApiRequest(url, tokens.accessToken, body)),
        args.scope,
      );
    } catch (error) {
      if (!(error instanceof AuthError) || error.status !== 401 || tokens.refreshToken === null)
        throw error;
      let retry;
      try {
        retry = await currentTokens(deps, { rejected: tokens.accessToken });
      } catch {
        throw error;
      }
      answer = processApiResponse(
        await ctx.send(buildApiRequest(url, retry.tokens.accessToken, body)),
        args.scope,
      );
    }
  }
  report(answer, Boolean(ctx.flags.raw), ctx);
}

function report(answer: ApiAnswer, raw: boolean, ctx: CliContext): void {
  if (answer.kind === 'none') return;
  const response = answer.body;
  if (Array.isArray(response)) {
    ctx.out.result(response);
    const failed = response.filter((item) => rpcErrorFrom(item) !== undefined).length;
    if (failed > 0) {
      throw new ServiceError(
        `${failed} of ${response.length} calls in the batch answered with an error`,
        { code: 'batch_error' },
      );
    }
    return;
  }
  const error = rpcErrorFrom(response);
  if (raw) ctx.out.result(response);
  if (error) throw error;
  if (!raw) ctx.out.result((response as { result?: unknown }).result ?? null);
}
