// `--record` bounds (bounds.ts) applied to one call: its params and its answer each cut to the
// size of an example, and what was cut said. Pure.
import type { Example } from '../fixture-format/descriptors.js';
import type { ErrorObject } from '../../schemas/instance.js';
import { bound, EXAMPLE_LIMIT, RECORD_DEPTH, tooDeep, type Cut } from './bounds.js';
import { PAIRING_LEVELS } from './pairings.js';
import type { RpcCall } from './rpc-exchange.js';

/** A call as it may be recorded, with what was cut from it (empty: nothing). */
export interface BoundedCall {
  params: unknown;
  outcome: Example['outcome'] | undefined;
  /** `answer larger than 1 MiB of JSON`, `params nested more than 100 levels deep`, … */
  cut: string[];
}

function said(what: 'params' | 'answer', why: Cut): string {
  return why === 'size'
    ? `${what} larger than ${EXAMPLE_LIMIT / 1024 / 1024} MiB of JSON`
    : `${what} nested more than ${RECORD_DEPTH} levels deep`;
}

/**
 * The call within bounds, or why it cannot be recorded at all: params nested too deep (replay
 * matches params exactly, and cut ones would never match a call).
 */
export function boundCall(call: RpcCall): BoundedCall | { refused: string } {
  if (tooDeep(call.params)) return { refused: said('params', 'depth') };
  const params = bound(call.params, EXAMPLE_LIMIT, PAIRING_LEVELS.params);
  const cut = params.cuts.map((why) => said('params', why));
  const answer = call.outcome;
  if (!answer) return { params: params.value, outcome: undefined, cut };
  const kept =
    'result' in answer
      ? bound(answer.result, EXAMPLE_LIMIT, PAIRING_LEVELS.result)
      : bound(answer.error, EXAMPLE_LIMIT, PAIRING_LEVELS.error);
  cut.push(...kept.cuts.map((why) => said('answer', why)));
  const outcome =
    'result' in answer ? { result: kept.value } : { error: kept.value as ErrorObject };
  return { params: params.value, outcome, cut };
}
