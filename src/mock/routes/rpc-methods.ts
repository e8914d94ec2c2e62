import type {
  HandlerContext,
  InstanceFixture,
  MethodFixture,
  FixtureHandler,
} from '../fixture-format/fixture-format.js';
import type { ValueCheck } from '../fixture-format/json-schema.js';
import type { RpcError, RpcOutcome } from './json-rpc.js';
import { findExample, namedParams } from '../fixture-format/example-match.js';
import { buildOpenRpcDocument } from '../fixture-format/openrpc.js';
import { isObject } from '../../util/guards.js';

type Bound = { named: Record<string, unknown> } | { error: RpcError };

function invalidParams(data: string): { error: RpcError } {
  return { error: { code: -32602, message: 'Invalid params', data } };
}

/**
 * Checks params against the declared ones (by name or by position, as `paramStructure` allows)
 * with their compiled JSON Schemas (unless `checkSchemas` is false); named params or a -32602
 * with the validator's message.
 */
export function bindParams(method: MethodFixture, params: unknown, checkSchemas = true): Bound {
  const named: Record<string, unknown> = {};
  // Defined, not assigned, and looked up as own members: a param named `__proto__` or
  // `constructor` is a param like any other, never Object.prototype's.
  const bind = (name: string, value: unknown) =>
    Object.defineProperty(named, name, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  const declared = method.params;
  if (Array.isArray(params) && method.paramStructure === 'by-name' && params.length > 0) {
    return invalidParams(`${method.name} takes params by name (an object)`);
  }
  if (isObject(params) && method.paramStructure === 'by-position' && declared.length > 0) {
    if (Object.keys(params).length > 0) {
      return invalidParams(`${method.name} takes params by position (an array)`);
    }
  }
  if (Array.isArray(params)) {
    const slots = method.positionalNames ?? declared.map((p) => p.name);
    if (params.length > slots.length) {
      return invalidParams(
        `${method.name} takes at most ${slots.length} params, got ${params.length}`,
      );
    }
    params.forEach((value, i) => bind(slots[i]!, value));
  } else if (params !== undefined) {
    for (const [name, value] of Object.entries(params as Record<string, unknown>)) {
      if (!declared.some((p) => p.name === name)) return invalidParams(`unknown param "${name}"`);
      bind(name, value);
    }
  }
  for (const param of declared) {
    if (!Object.hasOwn(named, param.name)) {
      if (param.required) return invalidParams(`missing required param "${param.name}"`);
      continue;
    }
    if (!checkSchemas) continue;
    const problem = param.check?.(named[param.name], param.name);
    if (problem) return invalidParams(problem);
  }
  return { named };
}

function isRpcError(value: unknown): value is RpcError {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return Number.isInteger(v.code) && typeof v.message === 'string';
}

/** JSON-RPC 2.0 §5.1 -32601, naming the method and the instance. */
export function methodNotFound(instance: InstanceFixture, name: string): { error: RpcError } {
  return {
    error: {
      code: -32601,
      message: 'Method not found',
      data: `no method "${name}" on instance ${instance.name}`,
    },
  };
}

/** SPEC §6: -32001 `no recorded answer`, its `data` the recorded params of the method. */
function noRecordedAnswer(method: MethodFixture): { error: RpcError } {
  return {
    error: {
      code: -32001,
      message: 'no recorded answer',
      data: method.examples
        .filter((e) => e.invalidRequest === undefined)
        .map((e) => paramsAsSent(method, e.params)),
    },
  };
}

/**
 * An example's params as a call sends them: an array for a by-position method, and for a recorded
 * method called by position (params `arg0`, `arg1`, …: the recorder's names for positions);
 * else the object by name.
 */
function paramsAsSent(method: MethodFixture, named: Record<string, unknown>): unknown {
  const names =
    method.paramStructure === 'by-position'
      ? method.params.map((p) => p.name)
      : method.positionalNames !== undefined &&
          Object.keys(named).length > 0 &&
          Object.keys(named).every((key) => method.positionalNames!.includes(key))
        ? method.positionalNames
        : undefined;
  if (names === undefined) return named;
  // Positions are contiguous: an example that skips one (written by name) stays by name.
  const given = names.filter((name) => Object.hasOwn(named, name));
  if (given.some((name, i) => name !== names[i])) return named;
  return given.map((name) => named[name]);
}

/**
 * Runs one method of an instance as `user` (SERVICE.md 5.4: results per authorizing user);
 * synchronous but for computed methods, whose handler may be.
 */
export function invokeMethod(
  instance: InstanceFixture,
  user: string,
  /** The API's URL, for rpc.discover (the only method that names it). */
  serverUrl: () => string,
  name: string,
  params: unknown,
): RpcOutcome | Promise<RpcOutcome> {
  if (name === 'rpc.discover') {
    const empty =
      params === undefined ||
      (Array.isArray(params) ? params.length === 0 : Object.keys(params as object).length === 0);
    if (!empty) return invalidParams('rpc.discover takes no params');
    return { result: buildOpenRpcDocument(instance, serverUrl()) };
  }
  const method = instance.methods.get(name);
  if (!method) return methodNotFound(instance, name);
  const answers = method.handlerRef || method.byUser || method.value !== undefined;
  const bound = bindParams(method, params);
  if ('error' in bound && method.examples.length > 0) {
    // SPEC §6: an example whose params contradict their schemas is still answered as written.
    const loose = bindParams(method, params, false);
    const example = 'named' in loose ? findExample(method.examples, loose.named) : undefined;
    if (example) return structuredClone(example.outcome);
  }
  if ('error' in bound) {
    if (method.recorded) {
      // A refused call is kept as an example outside the schema, which learns only from
      // accepted calls (SPEC §6): its params answer it, named as the recorder names them
      // (`argN`), or by position as the method declares them.
      const example =
        findExample(method.examples, namedParams(params).named) ??
        (Array.isArray(params) && params.length <= method.params.length
          ? findExample(
              method.examples,
              Object.fromEntries(params.map((v, i) => [method.params[i]!.name, v])),
            )
          : undefined);
      if (example) return structuredClone(example.outcome);
    }
    // SPEC §6: params that no recorded call had are "other params" of a recorded method, even
    // where they fall outside the schema inferred from the calls seen.
    return method.recorded && !answers ? noRecordedAnswer(method) : bound;
  }
  const named = bound.named;
  if (method.handlerRef && !(method.examples.length > 0 && findExample(method.examples, named))) {
    return callHandler(
      method.name,
      method.result?.check,
      { params: named, user, instance: instance.name },
      method.handler,
    );
  }
  // SPEC §6 replay: a recorded answer for these params first; a static, per-user or computed
  // result answers the others; a method with recorded answers only says it has none.
  const example = method.examples.length > 0 ? findExample(method.examples, named) : undefined;
  if (example) return structuredClone(example.outcome);
  if (!answers && (method.examples.length > 0 || instance.document))
    return noRecordedAnswer(method);
  const result =
    method.byUser && Object.hasOwn(method.byUser, user)
      ? method.byUser[user]
      : (method.value ?? null);
  return { result, json: staticJson(result) };
}

/**
 * A method answered by a function of the mock's `methods` option, before the fixtures: params
 * checked against the method's declared ones and bound to their names, as for a computed method.
 * A method the fixtures do not declare, or a recorded one (whose params schema was inferred from
 * a few calls, SPEC §6), gets the params as sent, and its result unchecked.
 */
export function invokeOverride(
  instance: InstanceFixture,
  handler: FixtureHandler,
  user: string,
  name: string,
  params: unknown,
): Promise<RpcOutcome> {
  const method = instance.methods.get(name);
  const asSent = {
    params: (params ?? {}) as Record<string, unknown>,
    user,
    instance: instance.name,
  };
  if (!method) return callHandler(name, undefined, asSent, handler);
  const bound = bindParams(method, params);
  if (method.recorded)
    return callHandler(
      name,
      undefined,
      'error' in bound ? asSent : { ...asSent, params: bound.named },
      handler,
    );
  if ('error' in bound) return Promise.resolve(bound);
  return callHandler(name, method.result?.check, { ...asSent, params: bound.named }, handler);
}

/** A computed method: its handler's result as JSON would carry it, or its error. */
async function callHandler(
  name: string,
  check: ValueCheck | undefined,
  context: HandlerContext,
  handler: FixtureHandler | undefined,
): Promise<RpcOutcome> {
  if (!handler) {
    return { error: { code: -32603, message: 'Internal error', data: 'handler not loaded' } };
  }
  try {
    const value = await handler(context);
    const text = JSON.stringify(value);
    const result: unknown = text === undefined ? null : JSON.parse(text);
    // SPEC §6: results are checked against the declared schema (static ones when the fixtures
    // load); a computed one that breaks its own contract is the fixture's bug, not an answer.
    const problem = check?.(result, 'result');
    if (problem) {
      return {
        error: {
          code: -32603,
          message: 'Internal error',
          data: `${name} computed a result that does not match its result schema: ${problem}`,
        },
      };
    }
    return { result };
  } catch (error) {
    if (isRpcError(error)) {
      const e: RpcError = { code: error.code, message: error.message };
      if (error.data !== undefined) e.data = error.data;
      return { error: e };
    }
    return {
      error: {
        code: -32603,
        message: 'Internal error',
        data: error instanceof Error ? error.message : String(error),
      },
    };
  }
}

const serialised = new WeakMap<object, string>();

/** A fixture's static result as JSON, serialised once (fixtures are not changed once loaded). */
function staticJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  let json = serialised.get(value);
  if (json === undefined) {
    json = JSON.stringify(value);
    serialised.set(value, json);
  }
  return json;
}
