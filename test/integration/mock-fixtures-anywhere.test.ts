// The default fixtures work wherever they are copied (README "Fixtures": the copy guide).
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../helpers/mock-client.js';
import { spawnMock } from '../helpers/mock-process.js';
import { scratchDir } from '../helpers/scratch.js';

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
    const mock = await spawnMock(['--fixtures', fixtures]);
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
});
