import { InterruptedError } from '../../errors.js';
import { isJsonText, rpcErrorFrom, type ApiAnswer } from '../../rpc/jsonrpc.js';
import { methodNamesOf } from '../../rpc/discover.js';
import { nearestNames } from '../../util/nearest-names.js';
import { shellWord } from '../shell-word.js';

/** JSON-RPC 2.0 §5.1: the method does not exist. */
const METHOD_NOT_FOUND = -32601;

/**
 * When the service answers -32601 to one call, the hint names the nearest method names from the
 * instance's `rpc.discover`: the close spellings as a question, else the nearest there are.
 * Undefined for any other answer, or when `rpc.discover` does not answer with an OpenRPC document
 * of at least one method: the hint is a help, never a second failure.
 */
export async function unknownMethodHint(
  answer: ApiAnswer,
  scope: string,
  method: string | undefined,
  discover: () => Promise<ApiAnswer>,
): Promise<string | undefined> {
  if (answer.kind !== 'json' || method === undefined || method === 'rpc.discover') return undefined;
  if (rpcErrorFrom(answer.body)?.rpc.code !== METHOD_NOT_FOUND) return undefined;
  let names: string[];
  try {
    const discovered = await discover();
    if (discovered.kind !== 'json') return undefined;
    names = methodNamesOf((discovered.body as { result?: unknown }).result);
  } catch (error) {
    if (error instanceof InterruptedError) throw error;
    return undefined;
  }
  const all = `(dasvc rpc ${scope} rpc.discover lists them all)`;
  const nearest = nearestNames(method, names);
  if (nearest.length === 0) {
    // rpc.discover itself is named by the hint's last words already.
    const others = nearestNames(
      method,
      names.filter((name) => name !== 'rpc.discover'),
      3,
      true,
    );
    return others.length === 0
      ? undefined
      : `the nearest methods of ${scope}: ${others.join(', ')} ${all}`;
  }
  const named =
    nearest.length > 1 ? `${nearest.slice(0, -1).join(', ')} or ${nearest.at(-1)}` : nearest[0];
  return `did you mean ${named}? ${all}`;
}

/** JSON-RPC 2.0 §5.1: invalid method parameters. */
const INVALID_PARAMS = -32602;

/** JSON types a `key=value` item cannot give, as validators name them. */
const TYPED = '(?:integer|number|boolean|array|object|null|int|float|double|bool)';

/**
 * A -32602 that says a param must be a number, boolean, array or object, for a param the user
 * gave as a string (`key=value`, `key=@file`): the hint is the typed item, `key:=value`. Undefined
 * for any other answer, or when no such item was given.
 */
export function typedParamHint(
  answer: ApiAnswer,
  items: readonly { key: string; raw: string }[],
): string | undefined {
  if (answer.kind !== 'json' || items.length === 0) return undefined;
  const error = rpcErrorFrom(answer.body)?.rpc;
  if (error?.code !== INVALID_PARAMS) return undefined;
  const data = typeof error.data === 'string' ? error.data : JSON.stringify(error.data ?? '');
  const said = `${error.message}\n${data}`;
  const hints = items
    .filter(({ key }) => {
      const name = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const quote = `["'\`]?`;
      return new RegExp(
        `(?:^|[^A-Za-z0-9_.$/-])${quote}${name}${quote}\\s+(?:must|should)\\s+be\\s+(?:an?\\s+|of\\s+type\\s+)?${TYPED}\\b`,
        'im',
      ).test(said);
    })
    .map(({ key, raw }) => {
      if (raw.startsWith('@') && raw.length > 1)
        return `${shellWord(`${key}=${raw}`)} sent the file's text as a string; ${shellWord(`${key}:=${raw}`)} sends it as JSON`;
      const typed = isJsonText(raw)
        ? shellWord(`${key}:=${raw}`)
        : `${shellWord(`${key}:=`)}<JSON>`;
      return `${shellWord(`${key}=${raw}`)} sent the string ${JSON.stringify(raw)}; ${typed} sends it as JSON`;
    });
  return hints.length === 0 ? undefined : hints.join('; ');
}
