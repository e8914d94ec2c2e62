// The default fixtures work wherever they are copied (README "Fixtures": the copy guide), and a
// fixtures folder's `$schema` references survive moving it (docs/design/schema-references.md).
import { cpSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { startMockServer } from '../../../src/mock/index.js';
import { FIXTURES } from '../../helpers/mock-client.js';
import { startMockInProcess } from '../../helpers/mock-process.js';
import { scratchDir } from '../../helpers/scratch.js';

/** Every JSON file of a fixtures folder that names a `$schema`, by path. */
function filesWithSchema(dir: string): string[] {
  const files = ['users.json', ...readdirSync(join(dir, 'instances')).map((f) => `instances/${f}`)];
  return files
    .filter((f) => f.endsWith('.json'))
    .map((f) => join(dir, f))
    .filter((file) => typeof JSON.parse(readFileSync(file, 'utf8')).$schema === 'string');
}

/**
 * What an editor does with `file`'s `$schema`: resolve it against the file's own place, load the
 * schema and the schemas beside it that it `$ref`s, and validate the file. Returns the schema's
 * path and ajv's verdict.
 */
function editorCheck(file: string): { schema: string; verdict: string } {
  const value = JSON.parse(readFileSync(file, 'utf8')) as { $schema: string };
  const schema = resolve(dirname(file), value.$schema);
  const ajv = new Ajv({ strict: false, allErrors: true });
  for (const sibling of readdirSync(dirname(schema)).filter((f) => f.endsWith('.schema.json'))) {
    const path = join(dirname(schema), sibling);
    ajv.addSchema(JSON.parse(readFileSync(path, 'utf8')) as object, pathToFileURL(path).href);
  }
  const validate = ajv.getSchema(pathToFileURL(schema).href);
  if (!validate) return { schema, verdict: 'no schema there' };
  return { schema, verdict: validate(value) ? 'valid' : ajv.errorsText(validate.errors) };
}

/**
 * Checks every file of `folder` that names a `$schema` as an editor would: the schema is in the
 * folder's `schema/`, and the file meets it. Returns the files checked, relative to `folder`.
 */
function checkedInside(folder: string): string[] {
  const files = filesWithSchema(folder);
  for (const file of files) {
    const { schema, verdict } = editorCheck(file);
    expect(relative(folder, schema).startsWith('schema/'), file).toBe(true);
    expect(verdict, file).toBe('valid');
  }
  return files.map((f) => relative(folder, f)).sort();
}

describe('the default fixtures copied into a CommonJS project (`npm init -y`)', () => {
  const project = scratchDir('dasvc-cjs-project-');
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'app', version: '1.0.0', type: 'commonjs' }, null, 2),
  );
  const fixtures = join(project, 'das-fixtures');
  cpSync(FIXTURES, fixtures, { recursive: true });
  // The other two kinds of method module the README names: CommonJS as .cjs, and .js as the
  // project's package.json says (CommonJS here).
  writeFileSync(join(fixtures, 'instances', 'kinds.cjs'), 'exports.kind = () => "cjs";\n');
  writeFileSync(
    join(fixtures, 'instances', 'kinds.js'),
    'module.exports.kind = () => "js as the package says";\n',
  );
  const crm = JSON.parse(readFileSync(join(fixtures, 'instances', 'crm.json'), 'utf8')) as {
    methods: unknown[];
  };
  crm.methods.push(
    { name: 'kind.cjs', params: [], handler: 'kinds.cjs#kind' },
    { name: 'kind.js', params: [], handler: 'kinds.js#kind' },
  );
  writeFileSync(join(fixtures, 'instances', 'crm.json'), JSON.stringify(crm, null, 2));

  it('dasvc mock serves them: .mjs, .cjs and .js method modules load', async () => {
    const mock = await startMockInProcess(['--fixtures', fixtures]);
    try {
      const minted = await fetch(`${mock.url}/_mock/tokens`, {
        method: 'POST',
        body: JSON.stringify({ user: 'alice', scope: 'crm wiki' }),
      });
      const { access_token: token } = (await minted.json()) as { access_token: string };
      const call = async (scope: string, method: string, params?: unknown) => {
        const res = await fetch(`${mock.url}/webservice/json/${scope}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        });
        return ((await res.json()) as { result?: unknown }).result;
      };
      expect(await call('crm', 'contacts.get', { id: 1 })).toMatchObject({ name: 'Ada Lovelace' });
      expect(await call('wiki', 'pages.list', { limit: 1 })).toHaveLength(1);
      expect(await call('crm', 'kind.cjs')).toBe('cjs');
      expect(await call('crm', 'kind.js')).toBe('js as the package says');
    } finally {
      await mock.stop();
    }
  });

  it('their $schema references resolve inside the copy, and the files meet them', () => {
    expect(checkedInside(fixtures)).toEqual([
      'instances/crm.json',
      'instances/wiki.json',
      'users.json',
    ]);
  });
});

describe('a recorded folder moved elsewhere', () => {
  const dir = join(scratchDir('dasvc-recorded-'), 'recorded');
  const moved = join(scratchDir('dasvc-moved-'), 'kept');
  const servers: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
  });

  it('keeps every $schema reference resolvable, inside the folder', async () => {
    const upstream = await startMockServer({ port: 0 });
    servers.push(upstream);
    const proxy = await startMockServer({ port: 0, proxy: upstream.url, record: dir });
    const minted = await fetch(`${upstream.url}/_mock/tokens`, {
      method: 'POST',
      body: JSON.stringify({ user: 'alice', scope: 'crm' }),
    });
    const { access_token: token } = (await minted.json()) as { access_token: string };
    const answer = await fetch(`${proxy.url}/webservice/json/crm`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'contacts.get', params: { id: 1 } }),
    });
    expect(answer.status).toBe(200);
    await proxy.close();
    renameSync(dir, moved);
    expect(checkedInside(moved)).toEqual(['instances/crm.openrpc.json', 'users.json']);
  });
});
