import { rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { loadFixtures } from '../../../src/mock/fixture-format/load-fixtures.js';
import { copyFixtures } from '../../helpers/mock-client.js';

const dir = copyFixtures();
writeFileSync(join(dir, 'users.json'), '{ "alice":\n  not json }');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function messageFor(given: string): string {
  try {
    loadFixtures(given);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as UsageError).message;
  }
  throw new Error('the broken fixtures loaded');
}

describe('a fixture error names the file as the user gave the folder', () => {
  it('absolute stays absolute (it was ../../tmp/… relative to the working directory)', () => {
    expect(messageFor(dir)).toMatch(new RegExp(`^fixture ${dir}/users\\.json: not valid JSON`));
    expect(messageFor(`${dir}/`)).toMatch(new RegExp(`^fixture ${dir}/users\\.json: `));
  });

  it('is one line: the parser’s problem, not its quote of the file', () => {
    expect(messageFor(dir)).toBe(`fixture ${dir}/users.json: not valid JSON: Unexpected token 'o'`);
  });

  it('relative stays relative, as typed', () => {
    const typed = `./${relative(process.cwd(), dir)}`;
    expect(messageFor(typed).startsWith(`fixture ${typed}/users.json: `)).toBe(true);
  });
});

describe('every broken instance file is named in one run', () => {
  it('two broken documents: both files, each problem with its pointer, exit 2', () => {
    const folder = copyFixtures();
    try {
      writeFileSync(join(folder, 'instances', 'crm.json'), '{ not json');
      writeFileSync(
        join(folder, 'instances', 'shop.openrpc.json'),
        JSON.stringify({ openrpc: '1.2.6', info: {}, methods: [] }),
      );
      let refused: unknown;
      try {
        loadFixtures(folder);
      } catch (error) {
        refused = error;
      }
      expect(refused).toMatchObject({ code: 'bad_fixture', exitCode: 2 });
      const lines = (refused as UsageError).message.split('\n');
      expect(lines[0]).toMatch(
        new RegExp(`^fixture ${folder}/instances/crm\\.json: not valid JSON`),
      );
      expect(lines.slice(1).join('\n')).toMatch(
        new RegExp(`^fixture ${folder}/instances/shop\\.openrpc\\.json: /info: needs "title"`, 'm'),
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('instances/ that cannot be listed is named, as any broken file', () => {
    const folder = copyFixtures();
    try {
      rmSync(join(folder, 'instances'), { recursive: true });
      writeFileSync(join(folder, 'instances'), '');
      expect(() => loadFixtures(folder)).toThrow(
        new UsageError(`fixture ${folder}/instances: cannot list it (ENOTDIR)`, {
          code: 'bad_fixture',
          facts: { folder },
        }),
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
