// The fixtures format (README "Fixtures"), parsed and checked without any I/O: each function
// takes the text or JSON of one file and returns what the mock serves, or fails with the problem.
import { resolve } from 'node:path';
import { checkSchemaShape, type Schema } from './json-schema.js';
import { isObject } from '../util/guards.js';

/** A registered client (SERVICE.md 2.1); no secret means a public client. */
export interface ClientFixture {
  id: string;
  secret: string | undefined;
}

/** A user who can approve access, with the instances they may reach (SERVICE.md 5.4). */
export interface UserFixture {
  id: string;
  name: string;
  instances: Set<string>;
}

/** An OpenRPC 1.2.6 content descriptor as the fixtures declare it (schema optional here). */
export interface ContentDescriptor {
  name: string;
  summary?: string;
  description?: string;
  required?: boolean;
  deprecated?: boolean;
  schema?: Schema | boolean;
}

/** A declared parameter: `required` settled, the schema one the mock can check values with. */
export interface ParamDescriptor extends ContentDescriptor {
  required: boolean;
  schema?: Schema;
}

/** What a computed method receives. */
export interface HandlerContext {
  params: Record<string, unknown>;
  user: string;
  instance: string;
}

export type MethodHandler = (context: HandlerContext) => unknown;

/** A JSON-RPC method of an instance: declared params and a static, per-user or computed result. */
export interface MethodFixture {
  name: string;
  summary?: string;
  description?: string;
  params: ParamDescriptor[];
  result?: ContentDescriptor;
  value?: unknown;
  byUser?: Record<string, unknown>;
  handlerRef?: { file: string; exportName: string };
  handler?: MethodHandler;
}

/** An instance (scope) and its methods. */
export interface InstanceFixture {
  name: string;
  title: string;
  description?: string;
  methods: Map<string, MethodFixture>;
}

/** Everything the mock serves. */
export interface Fixtures {
  dir: string;
  clients: Map<string, ClientFixture>;
  users: Map<string, UserFixture>;
  instances: Map<string, InstanceFixture>;
}

/** A problem in one fixture file; the loader adds the file name. */
export class FixtureProblem extends Error {}

/** Stops parsing one file with a problem the loader turns into a usage error naming it. */
export function fail(message: string): never {
  throw new FixtureProblem(message);
}

export const NAME = /^[A-Za-z0-9._~-]+$/;

/** `client_id:client_secret` lines; `#` comments and blank lines ignored. */
export function parseClients(text: string): Map<string, ClientFixture> {
  const clients = new Map<string, ClientFixture>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const colon = line.indexOf(':');
    const id = colon === -1 ? line : line.slice(0, colon);
    const secret = colon === -1 ? undefined : line.slice(colon + 1);
    if (!NAME.test(id)) fail(`line ${index + 1}: client_id "${id}" must match ${NAME}`);
    if (secret === '') fail(`line ${index + 1}: empty secret (omit ":" for a public client)`);
    if (clients.has(id)) fail(`line ${index + 1}: client "${id}" is listed twice`);
    clients.set(id, { id, secret });
  });
  if (clients.size === 0) fail('no client listed (expected client_id:client_secret lines)');
  return clients;
}

/** The OpenRPC content descriptor fields besides `schema`, type-checked; unknown keys dropped. */
function parseDescriptor(
  p: Record<string, unknown>,
  where: string,
): Omit<ContentDescriptor, 'schema'> {
  if (typeof p.name !== 'string' || p.name === '') fail(`${where} needs a string "name"`);
  const out: Omit<ContentDescriptor, 'schema'> = { name: p.name };
  for (const key of ['summary', 'description'] as const) {
    if (p[key] === undefined) continue;
    if (typeof p[key] !== 'string') fail(`${where}: "${key}" must be a string`);
    out[key] = p[key];
  }
  for (const key of ['required', 'deprecated'] as const) {
    if (p[key] === undefined) continue;
    if (typeof p[key] !== 'boolean') fail(`${where}: "${key}" must be true or false`);
    out[key] = p[key];
  }
  return out;
}

function parseParams(value: unknown, where: string): ParamDescriptor[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) fail(`${where}: "params" must be an array`);
  const seen = new Set<string>();
  let optionalSeen: string | undefined;
  return value.map((p, i) => {
    if (!isObject(p) || typeof p.name !== 'string' || p.name === '') {
      fail(`${where}: params[${i}] needs a string "name"`);
    }
    if (seen.has(p.name)) fail(`${where}: param "${p.name}" declared twice`);
    seen.add(p.name);
    const descriptor = parseDescriptor(p, `${where}: param "${p.name}"`);
    // OpenRPC 1.2.6 method object: optional params come after all required ones.
    if (descriptor.required !== true) optionalSeen ??= p.name;
    else if (optionalSeen !== undefined) {
      fail(`${where}: required param "${p.name}" comes after optional "${optionalSeen}"`);
    }
    const problem = p.schema === undefined ? undefined : checkSchemaShape(p.schema);
    if (problem) fail(`${where}: param "${p.name}": schema ${problem}`);
    return {
      ...descriptor,
      required: descriptor.required === true,
      ...(p.schema === undefined ? {} : { schema: p.schema as Schema }),
    };
  });
}

function parseResult(value: unknown, where: string): ContentDescriptor {
  if (!isObject(value) || typeof value.name !== 'string' || value.name === '') {
    fail(`${where}: "result" must be a descriptor {"name", "schema"}`);
  }
  const descriptor = parseDescriptor(value, `${where}: result`);
  const schema = value.schema;
  if (schema === undefined) return descriptor;
  // A JSON Schema is an object or a boolean (draft-07, as OpenRPC 1.2.6 uses).
  if (typeof schema !== 'boolean' && !isObject(schema)) {
    fail(`${where}: result: "schema" must be a JSON Schema object`);
  }
  return { ...descriptor, schema: schema as Schema | boolean };
}

function parseMethod(value: unknown, index: number, dir: string): MethodFixture {
  if (!isObject(value) || typeof value.name !== 'string' || value.name === '') {
    fail(`methods[${index}] needs a string "name"`);
  }
  const where = `method "${value.name}"`;
  if (value.name.startsWith('rpc.')) fail(`${where}: names starting with "rpc." are reserved`);
  const sources = ['value', 'byUser', 'handler'].filter((k) => value[k] !== undefined);
  if (
    sources.length > 1 &&
    !(sources.length === 2 && sources.includes('value') && sources.includes('byUser'))
  ) {
    fail(`${where}: give either "value"/"byUser" or "handler", not both`);
  }
  const method: MethodFixture = { name: value.name, params: parseParams(value.params, where) };
  if (typeof value.summary === 'string') method.summary = value.summary;
  if (typeof value.description === 'string') method.description = value.description;
  if (value.result !== undefined) method.result = parseResult(value.result, where);
  if (value.value !== undefined) method.value = value.value;
  if (value.byUser !== undefined) {
    if (!isObject(value.byUser)) fail(`${where}: "byUser" must map user names to results`);
    method.byUser = value.byUser;
  }
  if (value.handler !== undefined) {
    if (typeof value.handler !== 'string' || !/^[^#]+(#[A-Za-z_$][\w$]*)?$/.test(value.handler)) {
      fail(`${where}: "handler" must be "file.js" or "file.js#exportName"`);
    }
    const [file, exportName] = value.handler.split('#') as [string, string | undefined];
    method.handlerRef = { file: resolve(dir, file), exportName: exportName ?? 'default' };
  }
  return method;
}

/** One `instances/<name>.json` (SPEC §5 fixtures): methods with declared params and results. */
export function parseInstance(name: string, value: unknown, dir: string): InstanceFixture {
  if (!isObject(value)) fail('must be a JSON object with "methods"');
  if (!Array.isArray(value.methods)) fail('"methods" must be an array of method descriptors');
  const methods = new Map<string, MethodFixture>();
  value.methods.forEach((m, i) => {
    const method = parseMethod(m, i, dir);
    if (methods.has(method.name)) fail(`method "${method.name}" is declared twice`);
    methods.set(method.name, method);
  });
  return {
    name,
    title: typeof value.title === 'string' ? value.title : name,
    ...(typeof value.description === 'string' ? { description: value.description } : {}),
    methods,
  };
}

/** `users.json`: each user and the instances they may reach, all of which must exist. */
export function parseUsers(
  value: unknown,
  instances: Map<string, InstanceFixture>,
): Map<string, UserFixture> {
  if (!isObject(value)) fail('must be a JSON object mapping user names to {"name", "instances"}');
  const users = new Map<string, UserFixture>();
  for (const [id, user] of Object.entries(value)) {
    if (!NAME.test(id)) fail(`user "${id}": name must match ${NAME}`);
    if (!isObject(user) || !Array.isArray(user.instances)) {
      fail(`user "${id}": needs "instances": an array of instance names`);
    }
    for (const instance of user.instances) {
      if (typeof instance !== 'string' || !instances.has(instance)) {
        fail(
          `user "${id}": unknown instance ${JSON.stringify(instance)} (no instances/${String(instance)}.json)`,
        );
      }
    }
    users.set(id, {
      id,
      name: typeof user.name === 'string' ? user.name : id,
      instances: new Set(user.instances as string[]),
    });
  }
  if (users.size === 0) fail('no user listed');
  return users;
}
