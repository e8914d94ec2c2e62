import type { ServiceOptions } from '../../service-options.js';
import { accessSync, constants, existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import {
  InterruptedError,
  NetworkError,
  ServiceError,
  UsageError,
  type DasvcError,
} from '../../../errors.js';
import { createHttpClient } from '../../../http/http-client.js';
import { normalizeScope } from '../../../oauth/authorization-url.js';
import type { Endpoints } from '../../../oauth/endpoints.js';
import type { Probes } from '../../../check/probes.js';
import { runLoginFlow } from '../../../oauth/login-flow.js';
import { loginTimeoutMs } from '../../login-timeout.js';
import { parseDuration } from '../../../util/duration.js';
import type { CliDeps } from '../../context.js';
import { stdinLines } from '../../input.js';
import { answeredWith } from '../../output.js';
import { parsePort } from '../../port.js';
import { ResolvedSettings } from '../../../client/resolve-settings.js';
import { loadProfile } from '../../token-state.js';
import { pasteSessions } from './paste-sessions.js';

/** Options of `dasvc check` (SPEC §7). */
export interface CheckOptions extends ServiceOptions {
  only?: string;
  maxWait?: string;
  junit?: string;
  saveQuirks?: string;
  port?: string;
  /** false with --no-browser. */
  browser?: boolean;
  timeout?: string;
}

/** How long the revocations at the end may take after Ctrl-C (main ends the process at 2 s). */
const CLEANUP_AFTER_INTERRUPT_MS = 1500;

function sleeper(signal: AbortSignal): (ms: number) => Promise<void> {
  return (ms) =>
    new Promise((resolve, reject) => {
      if (signal.aborted) return reject(new InterruptedError('interrupted'));
      const onAbort = () => {
        clearTimeout(timer);
        reject(new InterruptedError('interrupted'));
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
}

function writeOut(file: string, text: string, flag: string): void {
  try {
    writeFileSync(file, text);
  } catch (error) {
    throw new UsageError(`${flag}: cannot write ${file}: ${(error as Error).message}`, {
      code: 'unwritable_file',
      cause: error,
    });
  }
}

/**
 * Whether `file` can be written, asked before the check runs (bad values are refused before any
 * work): a report file that cannot be written found out only after three
 * authorizations and some forty requests lost the report too.
 */
function checkWritable(file: string, flag: string): void {
  const problem = (() => {
    try {
      if (existsSync(file)) {
        if (statSync(file).isDirectory()) return 'it is a folder';
        accessSync(file, constants.W_OK);
      } else accessSync(dirname(resolve(file)), constants.W_OK);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  })();
  if (problem !== undefined)
    throw new UsageError(`${flag}: cannot write ${file}: ${problem}`, { code: 'unwritable_file' });
}

/**
 * `dasvc check` (SPEC §7): settings as `dasvc login` resolves them, the rules of src/check/, the
 * report (lines, `--json`, `--junit`), `--save-quirks`, and every token obtained revoked at the
 * end, Ctrl-C included. The stored profile is read, never written.
 */
export async function run(options: CheckOptions, deps: CliDeps): Promise<void> {
  const [{ selectRules }, { startCheck }, { revokeObtained }, report] = await Promise.all([
    import('../../../check/rule-catalogue.js'),
    import('../../../check/runner.js'),
    import('../../../check/probes.js'),
    import('../../../check/report.js'),
  ]);
  const selected = selectRules(options.only);
  const maxWaitMs =
    options.maxWait === undefined ? 0 : parseDuration(options.maxWait, '--max-wait') * 1000;
  const port = options.port === undefined ? 0 : parsePort(options.port);
  const timeoutMs = loginTimeoutMs(options.timeout);
  // The settings table checks every option and variable first (src/client/settings.ts).
  const given = ResolvedSettings.check(options, deps.env);
  const view = loadProfile(deps);
  await deps.store.loadSecrets(view.profile, view.name);
  const settings = given.withProfile(view.profile, view.name);
  const explicitEndpoints = (
    ['authorizeUrl', 'tokenUrl', 'refreshUrl', 'revokeUrl', 'apiUrl'] as const
  ).every((key) => settings.explicit(key));
  const baseUrl = explicitEndpoints
    ? settings.value('baseUrl')
    : await settings.ask('baseUrl', deps.prompter);
  const client = {
    clientId: await settings.ask('clientId', deps.prompter),
    clientSecret: await settings.ask('clientSecret', deps.prompter),
  };
  const scopes = normalizeScope(await settings.ask('scope', deps.prompter)).split(' ');
  const resolved = settings.withBaseUrl(baseUrl);
  const endpoints = Object.fromEntries(
    (['authorize', 'token', 'refresh', 'revoke', 'api'] as const).map((name) => [
      name,
      resolved.endpoint(name),
    ]),
  ) as unknown as Endpoints;
  const placement = resolved.placement();
  const installation = baseUrl ?? new URL(endpoints.token).origin;

  const stdin = options.browser === false ? stdinLines(deps.stdin) : undefined;
  const pasted = stdin ? pasteSessions(stdin.lines) : undefined;
  // On a terminal, one progress line per rule as it finishes; the report follows on stdout.
  const progress = deps.out.stderr.isTTY === true;
  let finished = 0;
  if (options.junit !== undefined) checkWritable(options.junit, '--junit');
  if (options.saveQuirks !== undefined) checkWritable(options.saveQuirks, '--save-quirks');
  const { probes, done, stopped, unauthorized } = startCheck(
    { baseUrl, client, scopes, endpoints, placement, maxWaitMs, port },
    selected,
    {
      send: deps.send,
      now: deps.now,
      sleep: sleeper(deps.signal),
      tell: (message) => deps.out.info(message),
      onVerdict: progress
        ? (v) => deps.out.info(`[${(finished += 1)}/${selected.size}] ${v.status} ${v.id}`)
        : undefined,
      authorize: (scope, send, witness) =>
        runLoginFlow(
          {
            authorizeUrl: endpoints.authorize,
            tokenUrl: endpoints.token,
            client,
            scope,
            placement,
            port,
            timeoutMs,
          },
          {
            send,
            probeSend: deps.send,
            now: deps.now,
            tell: (message) => deps.out.info(message),
            openBrowser: options.browser === false ? undefined : deps.openBrowser,
            pasted: pasted?.(),
            signal: deps.signal,
            witness,
          },
        ),
    },
  );
  let verdicts;
  try {
    verdicts = await done;
  } finally {
    stdin?.release();
    const cleanupSend = createHttpClient({
      env: deps.env,
      ...(deps.signal.aborted ? { timeoutMs: CLEANUP_AFTER_INTERRUPT_MS } : {}),
    });
    const unconfirmed = await revokeObtained(probes.obtained, probes.target, cleanupSend);
    if (probes.obtained.size > 0) {
      const revoked = probes.obtained.size - unconfirmed;
      deps.out.info(`Revoked the ${revoked} token${revoked === 1 ? '' : 's'} this check obtained.`);
    }
    if (unconfirmed > 0) deps.out.warn(`${unconfirmed} token(s) could not be revoked at the end.`);
  }

  if (options.junit !== undefined) {
    writeOut(options.junit, report.reportJunit(installation, verdicts), '--junit');
  }
  // What kept rules from being measured: a stop, an installation or an API that never answered.
  const unmeasured = stopped() ?? noAnswer(probes, installation);
  // A check that measured too little cannot describe the installation's quirks.
  if (options.saveQuirks !== undefined && unmeasured === undefined) {
    const quirks = report.quirksOf(verdicts);
    writeOut(options.saveQuirks, `${JSON.stringify(quirks, null, 2)}\n`, '--save-quirks');
    // What deviated is written; an absent member would otherwise read as measured and default.
    const why = unauthorized();
    if (why !== undefined)
      deps.out.warn(
        `--save-quirks: ${options.saveQuirks} holds what deviated among the rules measured; ${why}, so the rules that need its tokens were not`,
      );
  }
  // SPEC §7: exit 1 when a rule deviates, whatever kept others from being measured (said all the
  // same); else that failure's own code.
  const deviation = deviationOf(verdicts);
  if (deviation !== undefined && unmeasured !== undefined) deps.out.warn(unmeasured.message);
  const failure = deviation ?? unmeasured;
  const document = report.reportJson(installation, verdicts);
  if (!deps.out.json) for (const line of report.reportLines(verdicts)) deps.out.line(line);
  else if (failure === undefined) deps.out.result(document);
  deps.out.info(report.summary(verdicts));
  // Under --json, the report carries the failure as its `error` member (SPEC §4).
  if (failure !== undefined) throw answeredWith(failure, document);
}

/**
 * Requests sent and none answered: by the installation (a check whose rules sent none, or that
 * met the installation through the browser alone, is no network failure), or by its API, which
 * may live apart (every rule that needs it went unmeasured: no conformant installation).
 */
function noAnswer(probes: Probes, installation: string): DasvcError | undefined {
  if (probes.requests.unanswered) {
    return new NetworkError(`no answer from ${installation} to any request of the check`, {
      code: 'no_answer',
    });
  }
  if (probes.apiCalls.unanswered) {
    return new NetworkError(
      `the API did not answer any call of the check (${probes.apiCalls.failure})`,
      { code: 'no_answer' },
    );
  }
  return undefined;
}

/** The failure of a check where a rule deviates, if one does. */
function deviationOf(verdicts: readonly { status: string }[]): DasvcError | undefined {
  const deviating = verdicts.filter((v) => v.status === 'deviates').length;
  if (deviating === 0) return undefined;
  return new ServiceError(
    `${deviating} ${deviating === 1 ? 'rule deviates' : 'rules deviate'} from the service's rules`,
    { code: 'deviates' },
  );
}
