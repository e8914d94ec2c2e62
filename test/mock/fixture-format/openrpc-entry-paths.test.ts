// An OpenRPC document is judged by one rule, the OpenRPC meta-schema, whichever way it comes in: a
// fixtures folder, a folder `--record` wrote and reads back, an installation's `rpc.discover`
// answer read by `dasvc types`. What a `$ref` leads to is judged by the meta-schema's definition
// of the object expected there.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFixtures } from '../../../src/mock/fixture-format/load-fixtures.js';
import { readPastRecording } from '../../../src/mock/proxy/record-folder.js';
import { instanceOfDocument } from '../../../src/typegen/contract-sources.js';
import { scratchDir } from '../../helpers/scratch.js';

/** A document with one method, its one param given by `param`, its one example by `example`. */
function document(param: unknown, example: unknown, shared: unknown = {}): unknown {
  return {
    openrpc: '1.2.6',
    info: { title: 'Contacts', version: '1.0.0' },
    methods: [
      {
        name: 'contacts.get',
        params: [param],
        result: { name: 'contact', schema: { type: 'object' } },
        examples: [{ name: 'first', params: [example], result: { name: 'c', value: {} } }],
      },
    ],
    'x-shared': shared,
  };
}

const PARAM = { name: 'id', required: true, schema: { type: 'integer' } };
const EXAMPLE = { name: 'id', value: 1 };

/** Whether each way in loads `doc`, or the problem it refuses it with. */
function throughEveryPath(doc: unknown): Record<string, string> {
  const dir = scratchDir('dasvc-openrpc-paths-');
  mkdirSync(join(dir, 'instances'));
  writeFileSync(join(dir, 'instances', 'crm.openrpc.json'), JSON.stringify(doc));
  const outcome = (read: () => unknown): string => {
    try {
      return read() === undefined ? 'missing' : 'loaded';
    } catch (error) {
      // The problem of the one file, without the file's name, which each path names its way.
      return (error as Error).message.replace(/^fixture \S+: /, '');
    }
  };
  return {
    fixtures: outcome(() =>
      loadFixtures(dir, true).instances.get('crm')?.methods.get('contacts.get'),
    ),
    recording: outcome(() => readPastRecording(dir).recordings.get('crm')),
    discover: outcome(() =>
      instanceOfDocument('crm', doc, (problem) => {
        throw new Error(problem);
      }).methods.get('contacts.get'),
    ),
  };
}

const everywhere = (outcome: string) => ({
  fixtures: outcome,
  recording: outcome,
  discover: outcome,
});

describe('one judge of OpenRPC documents, whichever way they come in', () => {
  it('a valid document loads from a folder, a recording and rpc.discover', () => {
    expect(throughEveryPath(document(PARAM, EXAMPLE))).toEqual(everywhere('loaded'));
  });

  it('an example param without a name is refused by all three, at the same place', () => {
    expect(throughEveryPath(document(PARAM, { value: 1 }))).toEqual(
      everywhere('/methods/0/examples/0/params/0: needs "name"'),
    );
  });

  it('what a $ref leads to is judged as the object expected there', () => {
    // x-… members are the document's own, which the meta-schema lets be anything: a param
    // kept there is judged when a $ref makes it one (a content descriptor needs a schema).
    const shared = { id: { name: 'id', required: true } };
    expect(throughEveryPath(document({ $ref: '#/x-shared/id' }, EXAMPLE, shared))).toEqual(
      everywhere('/x-shared/id: needs "schema"'),
    );
    const complete = { id: PARAM };
    expect(throughEveryPath(document({ $ref: '#/x-shared/id' }, EXAMPLE, complete))).toEqual(
      everywhere('loaded'),
    );
  });
});
