import { apiUnusable, tokenWorked } from './answers.js';
import { authorize, unusable } from './authorize-step.js';
import type { CheckRun } from './check-run.js';
import { rulesOf } from './rule-catalogue.js';
import {
  batchRule,
  discoverRule,
  notificationRule,
  rpcErrorRule,
  scopeNotGrantedRule,
} from './rules/api-rules.js';
import { codeReplayRevokesRule, codeSingleUseRule } from './rules/token-rules.js';
import type { Exchange } from './types.js';

/**
 * The first authorization's rules: its fresh access token at the API (scope, JSON-RPC errors,
 * notification, batch, rpc.discover), then its code sent again (single use, and whether the
 * replay revokes what the code gave).
 */
export async function codePhase(run: CheckRun): Promise<void> {
  const { probes, scope, settings } = run;
  const rules = rulesOf('code');
  const auth = await authorize(run);
  const why = unusable(auth);
  if (why !== undefined) return run.skipUnauthorized(rules, why);
  const access = auth.access!;
  // The JSON-RPC rules measure the API behind its bearer check: a fresh token must get through.
  const discover = await probes.call(scope, 'rpc.discover', access);
  const apiWhy = apiUnusable(discover);
  if (apiWhy !== undefined) {
    run.skip(
      rules.filter((id) => id.startsWith('jsonrpc.') || id.startsWith('api.')),
      apiWhy,
    );
  }
  if (run.want('api.scope-not-granted')) {
    const other = settings.scopes[1];
    if (other === undefined) run.skip(['api.scope-not-granted'], 'the profile has one scope');
    else
      run.measured(
        'api.scope-not-granted',
        await probes.call(other, 'rpc.discover', access),
        scopeNotGrantedRule,
      );
  }
  const rpcError = (code: number) => (exchange: Exchange) => rpcErrorRule(exchange, code);
  if (run.want('jsonrpc.parse-error')) {
    const body = '{"jsonrpc": "2.0", "method"';
    run.measured('jsonrpc.parse-error', await probes.api(scope, body, access), rpcError(-32700));
  }
  if (run.want('jsonrpc.invalid-request')) {
    const body = JSON.stringify({ jsonrpc: '2.0', method: 42, id: 1 });
    run.measured(
      'jsonrpc.invalid-request',
      await probes.api(scope, body, access),
      rpcError(-32600),
    );
  }
  if (run.want('jsonrpc.method-not-found')) {
    const call = await probes.call(scope, 'dasvc.check.no-such-method', access);
    run.measured('jsonrpc.method-not-found', call, rpcError(-32601));
  }
  if (run.want('jsonrpc.notification')) {
    const body = JSON.stringify({ jsonrpc: '2.0', method: 'rpc.discover' });
    run.measured('jsonrpc.notification', await probes.api(scope, body, access), notificationRule);
  }
  if (run.want('jsonrpc.batch')) {
    const body = JSON.stringify([
      { jsonrpc: '2.0', method: 'rpc.discover', id: 1 },
      { jsonrpc: '2.0', method: 'dasvc.check.no-such-method', id: 2 },
    ]);
    run.measured('jsonrpc.batch', await probes.api(scope, body, access), (x) =>
      batchRule(x, [1, 2]),
    );
  }
  run.give('jsonrpc.discover', discoverRule(discover));
  if (!run.want('code.single-use') && !run.want('code.replay-revokes')) return;
  const replay = await probes.resend(auth.outcome.exchange!);
  run.measured('code.single-use', replay, codeSingleUseRule);
  const notMeasurable =
    tokenWorked(discover) !== true
      ? 'the access token did not work before the replay'
      : !replay.response
        ? `the replay got no answer (${replay.error ?? 'no answer'})`
        : undefined;
  if (notMeasurable !== undefined) return run.skip(['code.replay-revokes'], notMeasurable);
  const api = await probes.call(scope, 'rpc.discover', access);
  const refresh = auth.refresh === undefined ? undefined : await probes.refresh(auth.refresh);
  run.give('code.replay-revokes', codeReplayRevokesRule(api, refresh));
}
