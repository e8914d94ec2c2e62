import { InterruptedError } from '../errors.js';
import { rpcErrorFrom, type ApiAnswer } from '../rpc/jsonrpc.js';
import { methodNamesOf } from '../rpc/discover.js';
import { nearestNames } from '../rpc/nearest-names.js';

/** JSON-RPC 2.0 §5.1: the method does not exist. */
const METHOD_NOT_FOUND = -32601;

/**
 * SPEC §3: when the service answers -32601 to one call, the hint names the nearest method names
 * from the instance's `rpc.discover`. Undefined for any other answer, or when `rpc.discover` does
 * not answer with an OpenRPC document: the hint is a help, never a second failure.
 */
export async function unknownMethodHint(
  answer: ApiAnswer,
  scope: string,
  method: string | undefined,
  discover: () => Promise<ApiAnswer>,
): Promise<string | undefined> {
  if (answer.kind !== 'json' || method === undefined || method === 'rpc.discover') return undefined;
  if (rpcErrorFrom(answer.body)?.rpcError.code !== METHOD_NOT_FOUND) return undefined;
  let names: string[];
  try {
    const discovered = await discover();
    if (discovered.kind !== 'json') return undefined;
    names = methodNamesOf((discovered.body as { result?: unknown }).result);
  } catch (error) {
    if (error instanceof InterruptedError) throw error;
    return undefined;
  }
  const nearest = nearestNames(method, names);
  if (nearest.length === 0) return undefined;
  const named =
    nearest.length > 1 ? `${nearest.slice(0, -1).join(', ')} or ${nearest.at(-1)}` : nearest[0];
  return `did you mean ${named}? (dasvc rpc ${scope} rpc.discover lists them all)`;
}
