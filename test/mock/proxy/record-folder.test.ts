// What `--record DIR` reads back from a folder recorded before: its OpenRPC documents, the
// instances in the JSON format it leaves alone, users and clients; and how a broken file is told.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hintFor } from '../../../src/cli/hints/hint-for.js';
import { UsageError } from '../../../src/errors.js';
import { readPastRecording } from '../../../src/mock/proxy/record-folder.js';
import { scratchDir } from '../../helpers/scratch.js';

const DOCUMENT = {
  openrpc: '1.2.6',
  info: { title: 'Contacts', version: '1.0.0' },
  methods: [{ name: 'contacts.list', params: [], result: { name: 'r', schema: {} } }],
};

/** A record folder holding `files` (path under it → text). */
function folder(files: Record<string, string>): string {
  const dir = scratchDir('dasvc-record-folder-');
  mkdirSync(join(dir, 'instances'));
  for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text);
  return dir;
}

function refusal(dir: string): UsageError {
  try {
    readPastRecording(dir);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error('the broken folder was read');
}

describe('readPastRecording', () => {
  it('reads the documents, clients and users; JSON-format instances are only named', () => {
    const dir = folder({
      'clients.txt': 'web:recorded-secret\npublic\n',
      'users.json': JSON.stringify({ recorded: { name: 'Recorded', instances: ['crm'] } }),
      'instances/crm.openrpc.json': JSON.stringify(DOCUMENT),
      // Not read: a second file would define it twice, so recording leaves it alone.
      'instances/wiki.json': '{ not json',
      'instances/notes.txt': 'not an instance',
    });
    const past = readPastRecording(dir);
    expect([...past.recordings.keys()]).toEqual(['crm']);
    expect([...past.foreign]).toEqual(['wiki']);
    expect(past.clients).toEqual(
      new Map([
        ['web', 'recorded-secret'],
        ['public', undefined],
      ]),
    );
    expect(past.users).toEqual({ recorded: { name: 'Recorded', instances: ['crm'] } });
  });

  it('names every broken document in one run, with the facts of --record', () => {
    const dir = folder({
      'instances/crm.openrpc.json': '{"openrpc": ',
      'instances/shop.openrpc.json': JSON.stringify({ ...DOCUMENT, info: {} }),
    });
    const error = refusal(dir);
    expect(error).toMatchObject({ code: 'bad_fixture', exitCode: 2, facts: { record: dir } });
    expect(error.facts).not.toHaveProperty('folder');
    expect(error.message.split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(`^fixture ${dir}/instances/crm\\.openrpc\\.json: not valid`),
      ),
      `fixture ${dir}/instances/shop.openrpc.json: /info: needs "title" (2 problems)`,
      `fixture ${dir}/instances/shop.openrpc.json: /info: needs "version"`,
    ]);
    expect(hintFor(error)).toBe(
      `recording adds to what ${dir} holds: fix the file, or pass --record a new folder`,
    );
  });

  it('a broken clients.txt or users.json, or instances/ that is no folder, names --record', () => {
    const users = refusal(folder({ 'users.json': '[]' }));
    expect(users.message).toMatch(/users\.json: must be a JSON object, not an array$/);
    const clients = refusal(folder({ 'clients.txt': 'bad id!:secret\n' }));
    expect(clients.message).toMatch(/^fixture \S+clients\.txt: /);
    const notFolder = scratchDir('dasvc-record-folder-');
    writeFileSync(join(notFolder, 'instances'), '');
    const listing = refusal(notFolder);
    expect(listing.message).toBe(`fixture ${notFolder}/instances: cannot list it (ENOTDIR)`);
    for (const error of [users, clients, listing]) {
      expect(error).toMatchObject({ code: 'bad_fixture' });
      expect(hintFor(error)).toMatch(/^recording adds to what /);
    }
  });

  it('a users.json its schema refuses names the file, the pointer and the problem', () => {
    const dir = folder({
      'users.json': JSON.stringify({ ann: { name: 'Ann', instances: 'crm' } }),
      'instances/crm.openrpc.json': JSON.stringify(DOCUMENT),
    });
    const error = refusal(dir);
    expect(error).toMatchObject({ code: 'bad_fixture', exitCode: 2, facts: { record: dir } });
    expect(error.message).toBe(
      `fixture ${dir}/users.json: /ann/instances: must be an array, not "crm"`,
    );
    expect(hintFor(error)).toMatch(/^recording adds to what /);
  });

  it('a user naming an instance the folder lacks is read: the mock tells it on loading', () => {
    const users = { ann: { instances: ['nowhere'] } };
    const past = readPastRecording(folder({ 'users.json': JSON.stringify(users) }));
    expect(past.users).toEqual(users);
  });
});
