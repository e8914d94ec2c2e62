import { UsageError } from '../errors.js';
import { jsonSyntaxProblem } from '../util/json-error.js';

/** How params items reach their inputs: files and stdin are read by the caller (I/O passed in). */
export interface ParamsSources {
  readFile(path: string): string;
  readStdin(): string;
}

function parseJsonText(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    // Without V8's quote of the text: it is the user's input, and may hold escape sequences.
    throw new UsageError(`${where} is not valid JSON: ${jsonSyntaxProblem(error)}`, {
      code: 'bad_params',
    });
  }
}

function readFrom(sources: ParamsSources, path: string, item: string): string {
  try {
    return sources.readFile(path);
  } catch (error) {
    throw new UsageError(
      `cannot read ${path} for param ${JSON.stringify(item)}: ${(error as Error).message}`,
      {
        code: 'bad_params',
      },
    );
  }
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
    const eq = item.indexOf('=');
    if (eq <= 0 || (eq === 1 && item[0] === ':')) {
      throw new UsageError(
        `cannot read param ${JSON.stringify(item)}: use key=value, key:=json, key=@file or key:=@file`,
        {
          code: 'bad_params',
        },
      );
    }
    const typed = item[eq - 1] === ':';
    const key = item.slice(0, typed ? eq - 1 : eq);
    const raw = item.slice(eq + 1);
    if (Object.hasOwn(params, key)) {
      throw new UsageError(`param ${JSON.stringify(key)} given twice`, { code: 'bad_params' });
    }
    let value: unknown;
    if (raw.startsWith('@') && raw.length > 1) {
      const text = readFrom(sources, raw.slice(1), item);
      value = typed ? parseJsonText(text, `${raw.slice(1)} (param ${key})`) : text;
    } else {
      value = typed ? parseJsonText(raw, `value of param ${key}`) : raw;
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
    throw new UsageError('params must be a JSON object or array (JSON-RPC 2.0 §4.2)', {
      code: 'bad_params',
    });
  }
  return value;
}
