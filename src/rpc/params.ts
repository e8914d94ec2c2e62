import { UsageError } from '../errors.js';
import { fileProblem } from '../util/file-problem.js';
import { jsonSyntaxProblem } from '../util/json-error.js';
import { parseExact } from '../util/exact-numbers.js';

/** How params items reach their inputs: files and stdin are read by the caller (I/O passed in). */
export interface ParamsSources {
  readFile(path: string): string;
  readStdin(): string;
}

/** `typedParam`: the key of a `key:=json` item whose text this is (a hint names its other form). */
function parseJsonText(text: string, where: string, typedParam?: string): unknown {
  try {
    return parseExact(text);
  } catch (error) {
    // Without V8's quote of the text: it is the user's input, and may hold escape sequences.
    throw new UsageError(`${where} is not valid JSON: ${jsonSyntaxProblem(error)}`, {
      code: 'bad_params',
      ...(typedParam === undefined ? {} : { facts: { typedParam } }),
    });
  }
}

function readFrom(sources: ParamsSources, path: string, item: string): string {
  try {
    return sources.readFile(path);
  } catch (error) {
    throw new UsageError(
      `cannot read ${path} for param ${JSON.stringify(item)}: ${fileProblem(error)}`,
      {
        code: 'bad_params',
      },
    );
  }
}

/** One `key=value` / `key:=json` item, split at its first `=`; undefined when it is none. */
function splitItem(item: string): { typed: boolean; key: string; raw: string } | undefined {
  const eq = item.indexOf('=');
  if (eq <= 0 || (eq === 1 && item[0] === ':')) return undefined;
  const typed = item[eq - 1] === ':';
  return { typed, key: item.slice(0, typed ? eq - 1 : eq), raw: item.slice(eq + 1) };
}

/** The file an item's value names (`@file`), if it names one. */
function fileOf(raw: string): string | undefined {
  return raw.startsWith('@') && raw.length > 1 ? raw.slice(1) : undefined;
}

/** Whether the items are one JSON argument or `-` (stdin), which name no file. */
function isWhole(items: readonly string[]): boolean {
  return items.length === 1 && (items[0] === '-' || /^\s*[[{]/.test(items[0]!));
}

/**
 * The files the items name (`key=@file`, `key:=@file`), in order, each once: the caller reads
 * them (asynchronously, for Ctrl-C) before parseParams takes their text through `readFile`.
 */
export function paramFilePaths(items: readonly string[]): string[] {
  if (isWhole(items)) return [];
  const paths = items
    .map((item) => fileOf(splitItem(item)?.raw ?? ''))
    .filter((p) => p !== undefined);
  return [...new Set(paths)];
}

/**
 * The keys that `items` give so far, to complete the others; undefined when the items are one JSON
 * argument or `-`, which take no keys beside them.
 */
export function givenParamKeys(items: readonly string[]): string[] | undefined {
  if (items.some((item) => item === '-' || /^\s*[[{]/.test(item))) return undefined;
  return items.map((item) => splitItem(item)?.key).filter((key) => key !== undefined);
}

/**
 * The items that give a param a string (`key=value`, `key=@file`), with their key and value as
 * typed; none when the items are one JSON argument or `-`.
 */
export function stringItems(items: readonly string[]): { key: string; raw: string }[] {
  if (isWhole(items)) return [];
  return items.flatMap((item) => {
    const split = splitItem(item);
    return split && !split.typed ? [{ key: split.key, raw: split.raw }] : [];
  });
}

/**
 * The `dasvc rpc` params grammar (SPEC §3): nothing → `{}`; one JSON object/array argument; `-` for
 * JSON on stdin; or items `key=value` (string), `key:=json`, `key=@file` (file text), `key:=@file`
 * (JSON from a file). The first `=` splits key from value, so values may contain `=`.
 */
export function parseParams(items: readonly string[], sources: ParamsSources): unknown {
  if (items.length === 0) return {};
  const first = items[0]!;
  if (items.length === 1 && first === '-')
    return checkParamsShape(parseJsonText(sources.readStdin(), 'params on stdin'));
  if (items.length === 1 && /^\s*[[{]/.test(first))
    return checkParamsShape(parseJsonText(first, 'params argument'));
  const params: Record<string, unknown> = {};
  for (const item of items) {
    if (item === '-' || /^\s*[[{]/.test(item)) {
      throw new UsageError(
        `a JSON params argument or "-" must be the only params argument, got ${JSON.stringify(item)} among others`,
        {
          code: 'bad_params',
        },
      );
    }
    const split = splitItem(item);
    if (!split) {
      throw new UsageError(
        `cannot read param ${JSON.stringify(item)}: use key=value, key:=json, key=@file or key:=@file`,
        {
          code: 'bad_params',
        },
      );
    }
    const { typed, key, raw } = split;
    if (Object.hasOwn(params, key)) {
      throw new UsageError(`param ${JSON.stringify(key)} given twice`, { code: 'bad_params' });
    }
    let value: unknown;
    const file = fileOf(raw);
    if (file !== undefined) {
      const text = readFrom(sources, file, item);
      value = typed ? parseJsonText(text, `${file} (param ${key})`) : text;
    } else {
      value = typed ? parseJsonText(raw, `value of param ${key}`, key) : raw;
    }
    // Defined, not assigned: `__proto__=x` is a member like any other (found by fast-check).
    Object.defineProperty(params, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return params;
}

/** JSON-RPC 2.0 §4.2: params are a structured value, an object or an array. */
function checkParamsShape(value: unknown): unknown {
  if (value === null || typeof value !== 'object') {
    throw new UsageError('params must be a JSON object or array (JSON-RPC 2.0 takes no other)', {
      code: 'bad_params',
    });
  }
  return value;
}
