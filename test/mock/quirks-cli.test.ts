import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runDasvc, startMockInProcess } from '../helpers/mock-process.js';

const dir = mkdtempSync(join(tmpdir(), 'dasvc-quirks-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function quirksFile(name: string, content: string): string {
  const file = join(dir, name);
  writeFileSync(file, content);
  return file;
}

describe('dasvc mock --quirks FILE (SPEC §7)', () => {
  it('an unknown member exits 2 naming it', async () => {
    const file = quirksFile('unknown.json', '{"expiresIn":"number","colour":"red"}');
    const result = await runDasvc(['mock', '--port', '0', '--quirks', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown member "colour"');
    expect(result.stdout).toBe('');
  });

  it('an unknown value exits 2 naming member and value', async () => {
    const file = quirksFile('value.json', '{"revokeUnknownToken":"maybe"}');
    const result = await runDasvc(['mock', '--port', '0', '--quirks', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('revokeUnknownToken: unknown value "maybe"');
  });

  it('a file that is not JSON, or missing, exits 2 naming the file', async () => {
    const bad = quirksFile('bad.json', '{expiresIn:');
    const notJson = await runDasvc(['mock', '--port', '0', '--quirks', bad]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain(bad);
    const missing = await runDasvc(['mock', '--port', '0', '--quirks', join(dir, 'none.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('none.json');
  });

  it('a good file is in force: GET /_mock/quirks shows it and tokens follow it', async () => {
    const file = quirksFile('good.json', '{"expiresIn":"number","tokenPath":"/oauth/token"}');
    const mock = await startMockInProcess(['--quiet', '--quirks', file]);
    try {
      const quirks = await fetch(`${mock.url}/_mock/quirks`).then((r) => r.json());
      expect(quirks).toEqual({ expiresIn: 'number', tokenPath: '/oauth/token' });
      const old = await fetch(`${mock.url}/webservice/authorize?grant_type=x`, {
        method: 'POST',
      });
      expect(old.status).toBe(404);
    } finally {
      await mock.stop();
    }
  });
});
