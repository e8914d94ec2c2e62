import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFixtures } from '../../../src/mock/fixture-format/load-fixtures.js';
import { parseClients } from '../../../src/mock/fixture-format/fixture-format.js';

describe('fixtures', () => {
  it('parses client lines: secrets, public clients, comments', () => {
    const clients = parseClients('# c\n\na:b:c\npub\n');
    expect(clients.get('a')).toEqual({ id: 'a', secret: 'b:c' });
    expect(clients.get('pub')).toEqual({ id: 'pub', secret: undefined });
  });
  it.each([
    ['clients.txt', 'a:x\na:y\n', /clients\.txt: line 2: client "a" is listed twice/],
    ['clients.txt', '# nothing\n', /clients\.txt: no client listed/],
    ['users.json', '[]', /users\.json: must be a JSON object/],
    ['instances/crm.json', '{"methods":[{"name":"x"},{"name":"x"}]}', /declared twice/],
    ['instances/crm.json', '{"methods":[{"name":"rpc.mine"}]}', /reserved/],
    [
      'instances/crm.json',
      '{"methods":[{"name":"x","params":[{"name":"a"},{"name":"b","required":true}]}]}',
      /crm\.json: \/methods\/0\/params\/1: required param "b" comes after optional "a"/,
    ],
    [
      'instances/crm.json',
      '{"methods":[{"name":"x","params":[{"name":"a","description":5}]}]}',
      /\/methods\/0\/params\/0\/description: must be a string, not 5$/,
    ],
    [
      'instances/crm.json',
      '{"methods":[{"name":"x","result":{"name":"r","schema":"string"}}]}',
      /\/methods\/0\/result\/schema: "string" must be a JSON Schema: an object or a boolean$/,
    ],
    // Refused by the files' schemas, which the loader checks them against (it once let them by).
    [
      'users.json',
      '{"alice":{"name":5,"instances":["crm"]}}',
      /users\.json: \/alice\/name: must be a string, not 5$/,
    ],
    [
      'users.json',
      '{"alice":{"instances":["crm","crm"]}}',
      /users\.json: \/alice\/instances: lists "crm" twice$/,
    ],
    [
      'users.json',
      '{"$schema":7,"alice":{"instances":[]}}',
      /users\.json: \/\$schema: must be a string, not 7$/,
    ],
    ['users.json', '{"$schema":"x"}', /users\.json: lists no user$/],
    ['users.json', '{"a b":{"instances":[]}}', /users\.json: \/a b: "a b" is not a user name/],
    [
      'instances/crm.json',
      '{"methods":[{"name":"x","handler":"crm.mjs","byUser":{}}]}',
      /crm\.json: \/methods\/0: give either "value"\/"byUser" or "handler", not both$/,
    ],
    [
      'instances/crm.json',
      '{"title":7,"methods":[]}',
      /crm\.json: \/title: must be a string, not 7$/,
    ],
    [
      'instances/crm.json',
      '{"methods":[{"name":"x","errors":{"code":1}}]}',
      /crm\.json: \/methods\/0\/errors: must be an array, not a JSON object$/,
    ],
    [
      'instances/crm.json',
      '{"methods":[{"name":"x","examples":[{"result":{"value":1}}]}]}',
      /crm\.json: \/methods\/0\/examples\/0: needs "params"$/,
    ],
    [
      'instances/crm.json',
      '{"methods":[{"name":"x","params":[{"$ref":"#/x"}]}]}',
      /crm\.json: \/methods\/0\/params\/0: "\$ref" is only resolved in OpenRPC documents/,
    ],
  ])('a broken %s is a usage error naming file and problem', (file, text, message) => {
    const dir = mkdtempSync(join(tmpdir(), 'dasvc-fx-'));
    mkdirSync(join(dir, 'instances'));
    writeFileSync(join(dir, 'clients.txt'), 'demo-client:demo-secret\n');
    writeFileSync(join(dir, 'users.json'), '{"alice":{"instances":["crm"]}}');
    writeFileSync(join(dir, 'instances', 'crm.json'), '{"methods":[]}');
    writeFileSync(join(dir, file), text);
    let error: unknown;
    try {
      loadFixtures(dir);
    } catch (e) {
      error = e;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(error).toMatchObject({ exitCode: 2, code: 'bad_fixture' });
    expect((error as Error).message).toMatch(message);
  });
  it('loads the default fixtures', () => {
    const f = loadFixtures();
    expect(f.clients.get('demo-client')?.secret).toBe('demo-secret');
    expect(f.clients.get('other-client')?.secret).toBe('other-secret');
    expect([...f.users.get('alice')!.instances]).toEqual(['crm', 'wiki']);
    expect([...f.users.get('bob')!.instances]).toEqual(['crm']);
    expect([...f.instances.get('crm')!.methods.keys()]).toEqual(['contacts.list', 'contacts.get']);
    expect([...f.instances.get('wiki')!.methods.keys()]).toEqual(['pages.list']);
  });
});
