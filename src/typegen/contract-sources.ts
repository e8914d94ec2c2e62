// Where `dasvc types` reads a contract besides the installation (SPEC §10 `--from`): an OpenRPC
// document, or a fixtures folder (one written by `dasvc mock --record` is one), read by the
// mock's own loader. Nothing in it is run: computed-method modules are named, not imported.
import { existsSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { UsageError } from '../errors.js';
import { FixtureProblem } from '../mock/fixture-format/descriptors.js';
import {
  NAME,
  parseInstance,
  type InstanceFixture,
} from '../mock/fixture-format/fixture-format.js';
import { readJson, withFile } from '../mock/fixture-format/fixture-files.js';
import { loadFixtures } from '../mock/fixture-format/load-fixtures.js';
import { parseOpenRpcInstance } from '../mock/fixture-format/openrpc-format.js';
import { isObject } from '../util/guards.js';
import { isStackOverflow } from '../util/stack-overflow.js';

/** One instance from its document: OpenRPC, or the fixtures' own instance format. */
function parseDocument(name: string, document: unknown, file: string): InstanceFixture {
  return isObject(document) && document.openrpc !== undefined
    ? parseOpenRpcInstance(name, document, file)
    : parseInstance(name, document, file);
}

/**
 * The instance an installation's `rpc.discover` answered for `scope`; a document that is no
 * OpenRPC document goes to `refuse` with its problems, a line each (JSON pointer and message).
 */
export function instanceOfDocument(
  scope: string,
  document: unknown,
  refuse: (problem: string) => never,
): InstanceFixture {
  try {
    return parseOpenRpcInstance(scope, document, `rpc.discover of ${scope}`);
  } catch (error) {
    // A document nested deeper than a check can follow (the stack's end) is no usable one.
    if (isStackOverflow(error)) return refuse(`it is nested too deep to check (${error.message})`);
    if (!(error instanceof FixtureProblem)) throw error;
    const line = (p: { pointer: string; message: string }) =>
      `${p.pointer === '' ? '' : `${p.pointer}: `}${p.message}`;
    return refuse([error, ...error.others].map(line).join('\n'));
  }
}

/**
 * The instances of `--from PATH`, sorted by name: every instance of a folder, or those `scopes`
 * names; the one instance of a document, named by the one scope given or after the file
 * (`crm.openrpc.json`, `crm.json`: crm).
 */
export function instancesFrom(path: string, scopes: readonly string[]): InstanceFixture[] {
  if (!existsSync(path)) {
    throw new UsageError(`--from ${path} does not exist`, {
      code: 'bad_fixture',
      facts: { from: path, exists: false },
    });
  }
  if (statSync(path).isDirectory()) {
    const { instances } = loadFixtures(path, true, { from: path });
    if (scopes.length === 0) return [...instances.values()];
    const unknown = scopes.filter((scope) => !instances.has(scope));
    if (unknown.length > 0) {
      throw new UsageError(`--from ${path} has no instance ${unknown.join(', ')}`, {
        code: 'bad_scope',
        facts: { from: path, instances: [...instances.keys()] },
      });
    }
    return [...new Set(scopes)].map((scope) => instances.get(scope)!);
  }
  if (scopes.length > 1) {
    throw new UsageError(`--from ${path} is one document, of one instance: name one scope`, {
      code: 'bad_scope',
    });
  }
  const name = scopes[0] ?? basename(path).replace(/(\.openrpc)?\.json$/i, '');
  if (!NAME.test(name)) {
    throw new UsageError(`--from ${path}: its file name names no instance`, {
      code: 'bad_scope',
      facts: { from: path, unnamed: true },
    });
  }
  return [
    withFile(dirname(path), path, () => parseDocument(name, readJson(path), path), { from: path }),
  ];
}
