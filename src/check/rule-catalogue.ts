import { UsageError } from '../errors.js';

/**
 * Every rule of SPEC §7 in report order, with what it expects: SERVICE.md where it speaks, else
 * the decisions of SPEC §5, and the phase of the check that measures it (RulePhase). The ids are
 * stable (scripts and `--only` name them).
 */
export const RULES = [
  ['redirect.code-and-state', 'the redirect carries a code and the state unchanged', 'code'],
  ['token.members', 'the token response has access_token, expires_in and refresh_token', 'code'],
  ['token.expires-in', 'expires_in is a string of seconds', 'expiry'],
  ['code.single-use', 'a used code is refused (RFC 6749)', 'code'],
  ['code.replay-revokes', 'the tokens issued for a replayed code stop working (RFC 6749)', 'code'],
  [
    'client.wrong-secret',
    'a wrong client secret is refused with invalid_client (RFC 6749)',
    'none',
  ],
  ['refresh.new-pair', 'a refresh answers a new access_token and refresh_token', 'refresh'],
  ['refresh.rotation', 'the new refresh token differs from the old one', 'refresh'],
  ['refresh.old-refused', 'the used refresh token is refused afterwards', 'refresh'],
  ['refresh.after-expiry', 'a refresh after the access token expired is refused', 'expiry'],
  ['revoke.answer', 'revoke answers {"result":"Token revoked"}', 'revoke'],
  ['revoke.access-token', 'a revoked access token stops working', 'revoke'],
  [
    'revoke.refresh-token',
    'a revoked refresh token stops working, and its access token too',
    'expiry',
  ],
  [
    'revoke.unknown-token',
    'revoking an unknown token is answered like a known one (RFC 7009)',
    'revoke',
  ],
  ['errors.shape', 'OAuth errors are RFC 6749 JSON {"error": …}', 'none'],
  ['endpoints.token-path', 'the token endpoint is {base_url}/webservice/authorize', 'none'],
  [
    'api.missing-bearer',
    'an API call without a bearer token is refused: 401 and WWW-Authenticate: Bearer (RFC 6750)',
    'none',
  ],
  [
    'api.wrong-bearer',
    'an API call with an unknown bearer token is refused: 401 and WWW-Authenticate: Bearer (RFC 6750)',
    'none',
  ],
  [
    'api.scope-not-granted',
    'an API call to a scope the token was not granted is refused: 403',
    'code',
  ],
  ['jsonrpc.parse-error', 'a body that is not JSON answers error -32700 (JSON-RPC 2.0)', 'code'],
  [
    'jsonrpc.invalid-request',
    'a request object that is not valid answers error -32600 (JSON-RPC 2.0)',
    'code',
  ],
  ['jsonrpc.method-not-found', 'an unknown method answers error -32601 (JSON-RPC 2.0)', 'code'],
  ['jsonrpc.notification', 'a notification gets no response: HTTP 204', 'code'],
  ['jsonrpc.batch', 'a batch answers an array with one response per call (JSON-RPC 2.0)', 'code'],
  ['jsonrpc.discover', 'rpc.discover answers an OpenRPC document', 'code'],
] as const;

/** A rule id of SPEC §7. */
export type RuleId = (typeof RULES)[number][0];

/**
 * What a rule needs to be measured: `none`, no authorization; `code`, the first authorization (its
 * code, its fresh token at the API); `refresh` and `revoke`, a second one whose pair is refreshed,
 * then revoked; `expiry`, a third one left to expire.
 */
export type RulePhase = (typeof RULES)[number][2];

/** The rules of one phase, in report order. */
export function rulesOf(phase: RulePhase): RuleId[] {
  return RULES.filter((rule) => rule[2] === phase).map(([id]) => id);
}

/** What a rule expects, for its report line. */
export function expectedOf(id: RuleId): string {
  return RULES.find(([ruleId]) => ruleId === id)![1];
}

/**
 * The rules `--only ID|prefix,…` selects (SPEC §7): an exact id, or any start of ids, such as
 * `refresh.`, `refresh` or `refresh.new`. A name that selects nothing is a usage error naming it.
 */
export function selectRules(only: string | undefined): Set<RuleId> {
  const all = RULES.map(([id]) => id);
  if (only === undefined) return new Set(all);
  const selected = new Set<RuleId>();
  for (const raw of only.split(',')) {
    const name = raw.trim();
    if (name === '') continue;
    const matches = all.filter((id) => id.startsWith(name));
    if (matches.length === 0) {
      throw new UsageError(`--only: no rule is named or starts with "${name}"`, {
        code: 'unknown_rule',
        facts: { rules: all },
      });
    }
    for (const id of matches) selected.add(id);
  }
  if (selected.size === 0) throw new UsageError('--only names no rule', { code: 'unknown_rule' });
  return selected;
}
