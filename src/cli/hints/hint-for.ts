import { DasvcError } from '../../errors.js';
import { checkHint } from './check-hints.js';
import { demoHint } from './demo-hints.js';
import type { CauseOf, HintRule } from './facts.js';
import { logoutHint } from './logout-hints.js';
import { mockHint } from './mock-hints.js';
import { endpointHint, networkHint } from './network-hints.js';
import { paramsHint } from './params-hints.js';
import { sessionHint } from './session-hints.js';
import { storeHint } from './store-hints.js';
import { typesHint } from './types-hints.js';

/**
 * The areas, asked in turn. A command's flow comes first: a login that timed out in `dasvc check`
 * or `dasvc demo` is fixed with that command's flags, not with `dasvc login`'s, and a logout that
 * kept the tokens with `--forget`.
 */
const AREAS: readonly HintRule[] = [
  logoutHint,
  checkHint,
  demoHint,
  sessionHint,
  networkHint,
  endpointHint,
  storeHint,
  mockHint,
  typesHint,
  paramsHint,
];

/**
 * The next step for a person, printed under the message: the hint a command of the CLI gave,
 * else one made here from the error's stable code and facts (never the service's words). The
 * code below the CLI carries no terminal advice: the library's errors say what failed, the CLI
 * what to type next.
 */
export function hintFor(error: DasvcError): string | undefined {
  if (error.hint) return error.hint;
  const code = error.code ?? '';
  const facts = error.facts;
  const behind = error.cause;
  const cause: CauseOf | undefined =
    behind instanceof DasvcError ? { code: behind.code, hint: () => hintFor(behind) } : undefined;
  for (const area of AREAS) {
    const hint = area(code, facts, cause);
    if (hint !== undefined) return hint;
  }
  return undefined;
}
