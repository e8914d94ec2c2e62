import type { ServiceOptions } from '../../service-options.js';
import type { TokenTypeHint } from '../../../oauth/token-request.js';
import type { RevokeAnswer } from '../../../client/revoke.js';
import { openClient, type CliDeps } from '../../context.js';

/** Options of `dasvc token revoke` (SPEC §3). */
export interface TokenRevokeOptions extends ServiceOptions {
  token?: string;
  hint?: string;
  all?: boolean;
}

/** Human mode: the service's answer exactly as received on stdout, or a note when it sent none. */
function showRevocation(deps: CliDeps, answer: RevokeAnswer, what: string): void {
  if (answer.body === null) {
    deps.out.success(`${what}: revoked (the service sent no body)`);
    return;
  }
  if (!deps.out.json) deps.out.line(answer.text);
  deps.out.success(`Revoked ${what}`);
}

/**
 * `dasvc token revoke` (SPEC §3). With `--token`/DASVC_TOKEN: revoke that token with credentials from
 * flags/env (no store needed; CI). Otherwise the stored access token (or `--hint refresh_token`), or both
 * with `--all`. Exit 0 only when the service confirmed; its answer goes to stdout as received
 * (`--json`: the body, null for none, or with `--all` one object keyed by token type). Nothing
 * stored to revoke: exit 3.
 */
export async function run(options: TokenRevokeOptions, deps: CliDeps): Promise<void> {
  const client = openClient(options, deps);
  const explicit = client.settings(false).explicit('token') !== undefined;
  const name = explicit ? '' : client.profileName();
  // Shown once the client has stored what the service confirmed: a reader that closes stdout
  // early (`| head -0`) ends the process at the first write (closed-pipe.ts), and must not leave
  // revoked tokens in the profile. A failure part-way still shows the answers before it.
  const shown: (() => void)[] = [];
  let outcome;
  try {
    outcome = await client.revoke(
      {
        ...(options.hint === undefined ? {} : { hint: options.hint as TokenTypeHint }),
        ...(options.all ? { all: true } : {}),
      },
      (kind, answer) => {
        if (answer === null) deps.out.warn(`profile ${name} holds no ${kind}; skipped`);
        else {
          const what = explicit ? `the given ${kind}` : `the ${kind} of profile ${name}`;
          shown.push(() => showRevocation(deps, answer, what));
        }
      },
    );
  } finally {
    for (const show of shown) show();
  }
  if (!deps.out.json) return;
  if (options.all) {
    const bodies: Partial<Record<TokenTypeHint, Record<string, unknown> | null>> = {};
    for (const [kind, answer] of Object.entries(outcome.revoked))
      bodies[kind as TokenTypeHint] = answer.body;
    deps.out.result(bodies);
  } else {
    // One document always: null when the service confirmed with no body, as `--all` writes it.
    const revoked = Object.values(outcome.revoked)[0];
    if (revoked !== undefined) deps.out.result(revoked.body);
  }
}
