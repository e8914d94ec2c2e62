import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FixtureProblem } from '../../../src/mock/fixture-format/descriptors.js';
import {
  NAME,
  parseClients,
  parseInstance,
  parseUsers,
} from '../../../src/mock/fixture-format/fixture-format.js';
import { answerOrThrown, RUNS, text } from '../../helpers/parser-properties.js';

describe('fixture files (SPEC §5 fixtures)', () => {
  it('any clients file: clients or a FixtureProblem', () => {
    const line = fc.oneof(
      text,
      fc.tuple(fc.string(), fc.string()).map(([a, b]) => `${a}:${b}`),
      fc.constantFrom('# c', '', 'demo:demo-secret'),
    );
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 6 }).map((l) => l.join('\n')),
        (file) => {
          const clients = answerOrThrown(
            () => parseClients(file),
            FixtureProblem,
            // The problem names its line, or says that no line lists a client.
            (error) => expect(error.message).toMatch(/^line \d+: |^no client listed/),
          );
          if (clients === undefined) return;
          // One client per line that is not a comment or blank (at least one), each a valid name,
          // no empty secret.
          const lines = file.split(/\r?\n/).map((l) => l.trim());
          expect(clients.size).toBe(lines.filter((l) => l !== '' && !l.startsWith('#')).length);
          expect(clients.size).toBeGreaterThan(0);
          for (const [id, client] of clients) {
            expect(client.id).toBe(id);
            expect(id).toMatch(NAME);
            expect(client.secret).not.toBe('');
          }
        },
      ),
      RUNS,
    );
  });

  it('any instance or users document: parsed or a FixtureProblem', () => {
    const method = fc.record(
      {
        name: fc.oneof(fc.string(), fc.anything()),
        params: fc.anything(),
        result: fc.anything(),
        handler: fc.anything(),
        results: fc.anything(),
      },
      { requiredKeys: [] },
    );
    // Valid documents among the rest, so that both outcomes are checked, not only refusals.
    const validInstance = fc
      .uniqueArray(fc.constantFrom('contacts.list', 'contacts.get', 'notes.add'), {
        minLength: 1,
        maxLength: 3,
      })
      .map((names) => ({
        title: 'CRM',
        methods: names.map((name) => ({ name, params: [], result: { name: 'r', schema: {} } })),
      }));
    const instance = fc.oneof(
      validInstance,
      fc.anything(),
      fc.record(
        {
          methods: fc.oneof(fc.array(method, { maxLength: 3 }), fc.anything()),
          title: fc.anything(),
        },
        { requiredKeys: [] },
      ),
    );
    const validUsers = fc
      .uniqueArray(fc.constantFrom('alice', 'bob', 'carol'), { minLength: 1, maxLength: 3 })
      .map((ids) => Object.fromEntries(ids.map((id) => [id, { name: id, instances: ['crm'] }])));
    const users = fc.oneof(
      validUsers,
      fc.anything(),
      fc.dictionary(
        fc.string(),
        fc.record(
          {
            name: fc.anything(),
            instances: fc.oneof(fc.array(fc.constantFrom('crm', 'wiki', 'x')), fc.anything()),
          },
          { requiredKeys: [] },
        ),
      ),
    );
    const accepted = { instances: 0, users: 0 };
    fc.assert(
      fc.property(instance, users, (doc, userDoc) => {
        const parsed = answerOrThrown(
          () => parseInstance('crm', doc, '/nonexistent'),
          FixtureProblem,
        );
        if (parsed !== undefined) {
          accepted.instances += 1;
          // Every declared method, each once, under its own name.
          const declared = (doc as { methods: unknown[] }).methods;
          expect(parsed.name).toBe('crm');
          expect(parsed.methods.size).toBe(declared.length);
          for (const [name, method] of parsed.methods) expect(method.name).toBe(name);
        }
        const instances = new Map([
          ['crm', { name: 'crm', title: 'crm', methods: new Map(), file: 'crm.json' }],
        ]);
        const parsedUsers = answerOrThrown(() => parseUsers(userDoc, instances), FixtureProblem);
        if (parsedUsers !== undefined) {
          accepted.users += 1;
          // At least one user, each a valid name reaching only instances that exist.
          expect(parsedUsers.size).toBeGreaterThan(0);
          for (const [id, user] of parsedUsers) {
            expect(id).toMatch(NAME);
            for (const name of user.instances) expect(instances.has(name)).toBe(true);
          }
        }
      }),
      RUNS,
    );
    expect(accepted.instances).toBeGreaterThan(RUNS.numRuns / 5);
    expect(accepted.users).toBeGreaterThan(RUNS.numRuns / 5);
  });
});
