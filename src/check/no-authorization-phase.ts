import type { CheckRun } from './check-run.js';
import { bearerRefusedRule } from './rules/api-rules.js';
import { tokenPathRule, wrongSecretRule } from './rules/token-rules.js';
import type { Finding } from './types.js';

/** The rules that need no authorization: a wrong secret, the token path, the API's bearer check. */
export async function noAuthorizationPhase(run: CheckRun): Promise<void> {
  const { probes, scope } = run;
  if (run.selects('client.wrong-secret') || run.selects('errors.shape')) {
    run.measured('client.wrong-secret', await probes.wrongSecret(), wrongSecretRule);
  }
  if (run.want('endpoints.token-path')) {
    run.give('endpoints.token-path', await tokenPathFinding(run));
  }
  const call = JSON.stringify({ jsonrpc: '2.0', method: 'rpc.discover', id: 1 });
  if (run.want('api.missing-bearer')) {
    run.measured('api.missing-bearer', await probes.api(scope, call, undefined), bearerRefusedRule);
  }
  if (run.want('api.wrong-bearer')) {
    const wrong = await probes.api(scope, call, 'dasvc-check-not-a-token');
    run.measured('api.wrong-bearer', wrong, bearerRefusedRule);
  }
}

/**
 * endpoints.token-path; when the token URL in use is not SERVICE.md's, SERVICE.md's path is
 * asked (an empty POST: no secret goes there) and its answer is the evidence.
 */
async function tokenPathFinding({ settings, probes }: CheckRun): Promise<Finding> {
  const { baseUrl } = settings;
  const standard = baseUrl === undefined ? undefined : `${baseUrl}/webservice/authorize`;
  if (standard === undefined || settings.endpoints.token.split(/[?#]/)[0] === standard) {
    return tokenPathRule(baseUrl, settings.endpoints.token);
  }
  const probe = await probes.exchange(
    {
      method: 'POST',
      url: standard,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    },
    false,
  );
  return tokenPathRule(baseUrl, settings.endpoints.token, probe);
}
