// `--record`: how a recorded example is written in its method of an OpenRPC document —
// one example pairing per distinct params, the params and answer masked first. Pure.
import { isObject } from '../../util/guards.js';
import type { Example } from '../fixture-format/descriptors.js';

/** Marks a method the recorder wrote (and may rewrite); other methods only gain examples. */
export const RECORDED = 'x-recorded';

/** JSON with object members sorted: equal params give equal keys, whatever their order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * An example's key among its method's: its params, in a space apart for an invalid request's
 * (`x-invalid-request`), which never stands for a call with the same params.
 */
export function exampleKey(params: unknown, invalidRequest: boolean): string {
  return invalidRequest ? `invalid ${canonicalJson(params)}` : canonicalJson(params);
}

/** Masks a JSON value before it is written. */
export type Mask = (value: unknown) => unknown;

/**
 * How what is written is masked: `data` for params and answers (names decide too), `document`
 * for what else a document holds (method names, what the folder's document had), and `version`
 * changes whenever either would mask more (a method built is reused until then).
 */
export interface Masking {
  data: Mask;
  document: Mask;
  version: number;
}

/**
 * Indentation levels of an example's values in the written document (methods → method →
 * examples → pairing → `result.value` / `params[i].value` / `x-error`): the size bound counts
 * the bytes as the file holds them.
 */
export const PAIRING_LEVELS = { params: 6, result: 6, error: 5 } as const;

/**
 * The OpenRPC example pairing of one recorded call: params by the method's names, the result or
 * the JSON-RPC error (`x-error`), and the marks `--record` sets.
 */
export function pairing(method: string, index: number, example: Example, names: string[]): unknown {
  const params = names
    .filter((name) => Object.hasOwn(example.params, name))
    .map((name) => ({ name, value: example.params[name] }));
  // Marked: a recorded answer is served as it came, not checked against a hand-written contract.
  const base = {
    name: `${method} #${index + 1}`,
    params,
    [RECORDED]: true,
    ...(example.truncated ? { 'x-truncated': true } : {}),
    ...(example.httpStatus === undefined ? {} : { 'x-http-status': example.httpStatus }),
    ...(example.invalidRequest === undefined
      ? {}
      : { 'x-invalid-request': example.invalidRequest }),
  };
  return 'error' in example.outcome
    ? { ...base, 'x-error': example.outcome.error }
    : { ...base, result: { name: 'result', value: example.outcome.result } };
}

/** An example with its params and answer masked. */
export function masked<T extends Example>(example: T, mask: Mask): T {
  const outcome = example.outcome;
  return {
    ...example,
    params: mask(example.params) as Record<string, unknown>,
    outcome:
      'result' in outcome
        ? { result: mask(outcome.result) }
        : {
            error: {
              ...outcome.error,
              message: mask(outcome.error.message) as string,
              ...(outcome.error.data === undefined ? {} : { data: mask(outcome.error.data) }),
            },
          },
  };
}

/**
 * Whether an answer takes the place of the one kept for the same params: the later one does, but
 * an HTTP error's never that of an answer of the method's own (a refused token or a gateway says
 * nothing of the params). `kept` undefined: there is none.
 */
export function takesPlace(
  nextIsHttpError: boolean,
  keptIsHttpError: boolean | undefined,
): boolean {
  return keptIsHttpError === undefined || keptIsHttpError || !nextIsHttpError;
}

/**
 * A method with one example pairing per distinct params once secrets are masked: two
 * calls whose params differed only by a secret (a code, a state) are one pairing after, the later
 * one, but an HTTP error's (`x-http-status`) never over one of the method's own answers. Member
 * order is ignored; `$ref` pairings and pairings without params stay as they are.
 */
export function withDistinctExamples<T>(method: T): T {
  if (!isObject(method) || !Array.isArray(method.examples)) return method;
  const examples = method.examples as unknown[];
  const keyOf = (example: unknown) =>
    isObject(example) && Array.isArray(example.params) && !('$ref' in example)
      ? exampleKey(example.params, 'x-invalid-request' in example)
      : undefined;
  const httpError = (example: unknown) => isObject(example) && 'x-http-status' in example;
  const chosen = new Map<string, number>();
  examples.forEach((example, i) => {
    const key = keyOf(example);
    if (key === undefined) return;
    const before = chosen.get(key);
    if (
      takesPlace(httpError(example), before === undefined ? undefined : httpError(examples[before]))
    )
      chosen.set(key, i);
  });
  if (chosen.size === examples.filter((e) => keyOf(e) !== undefined).length) return method;
  const kept = examples.filter((example, i) => {
    const key = keyOf(example);
    return key === undefined || chosen.get(key) === i;
  });
  return { ...method, examples: kept } as T;
}

/** A document whose every method has one example pairing per distinct params. */
export function distinctExamples(document: unknown): unknown {
  if (!isObject(document) || !Array.isArray(document.methods)) return document;
  return { ...document, methods: document.methods.map(withDistinctExamples) };
}
