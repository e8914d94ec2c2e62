// SPEC §6: the fixture files have published JSON Schemas (schema/), referenced by `$schema` from
// the default fixtures and from what --record writes; both must validate against them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { defaultFixturesDir } from '../../../src/mock/fixture-format/default-dir.js';
import { loadFixtures } from '../../../src/mock/fixture-format/load-fixtures.js';
import { InstanceRecording } from '../../../src/mock/proxy/recording.js';

const ROOT = join(import.meta.dirname, '../../..');
const read = (file: string): unknown => JSON.parse(readFileSync(join(ROOT, file), 'utf8'));

function validator() {
  const ajv = new Ajv({ strict: false, allErrors: true });
  for (const name of ['users', 'instance', 'openrpc']) {
    ajv.addSchema(read(`schema/${name}.schema.json`) as object, `${name}.schema.json`);
  }
  return (name: string, value: unknown): string => {
    const validate = ajv.getSchema(`${name}.schema.json`)!;
    return validate(value) ? 'valid' : ajv.errorsText(validate.errors);
  };
}

describe('schema/ (published JSON Schemas of the fixture files)', () => {
  const check = validator();

  it('the default fixtures reference the copies they carry, and meet them', () => {
    const users = read('fixtures/users.json') as Record<string, unknown>;
    expect(users.$schema).toBe('./schema/users.schema.json');
    expect(check('users', users)).toBe('valid');
    for (const name of ['crm', 'wiki']) {
      const instance = read(`fixtures/instances/${name}.json`) as Record<string, unknown>;
      expect(instance.$schema).toBe('../schema/instance.schema.json');
      expect(check('instance', instance)).toBe('valid');
    }
  });

  it('the default fixtures load unchecked (as the mock starts) as they load checked', () => {
    const checked = loadFixtures(defaultFixturesDir());
    expect(checked.instances.size).toBeGreaterThan(0);
    expect(loadFixtures()).toEqual(checked);
  });

  it('fixtures/schema/ holds the package’s schemas as they are (they travel with a copy)', () => {
    for (const name of ['users', 'instance', 'openrpc']) {
      const file = `${name}.schema.json`;
      expect(readFileSync(join(ROOT, 'fixtures/schema', file), 'utf8')).toBe(
        readFileSync(join(ROOT, 'schema', file), 'utf8'),
      );
    }
  });

  it('what --record writes meets the OpenRPC schema', () => {
    const recording = new InstanceRecording('shop');
    recording.add('orders.get', { id: 1 }, { result: { id: 1, total: 9.5 } });
    recording.add('orders.get', { id: 2 }, { error: { code: 404, message: 'no such order' } });
    recording.add('orders.find', ['x', 2], { result: [] });
    expect(check('openrpc', recording.document('../schema/openrpc.schema.json'))).toBe('valid');
  });

  it('an OpenRPC document from another tool: pairings by $ref, undeclared names by position', () => {
    // Valid OpenRPC 1.x that dasvc mock loads (SPEC §6: documents of other tools are fixtures).
    const document = {
      openrpc: '1.3.2',
      info: { title: 'pets', version: '1' },
      methods: [
        {
          name: 'pets.get',
          params: [{ name: 'id', schema: { type: 'integer' } }],
          result: { name: 'pet', schema: { type: 'object' } },
          examples: [
            {
              name: 'one',
              params: [{ $ref: '#/components/examples/IdOne' }],
              result: { $ref: '#/components/examples/PetOne' },
            },
            {
              name: 'two',
              params: [{ name: 'petId', value: 2 }],
              result: { name: 'pet', value: { id: 2 } },
            },
            { $ref: '#/components/examplePairings/Three' },
          ],
        },
      ],
      components: {
        examples: { IdOne: { name: 'id', value: 1 }, PetOne: { name: 'pet', value: { id: 1 } } },
        examplePairings: {
          Three: {
            name: 'three',
            params: [{ name: 'id', value: 3 }],
            result: { name: 'pet', value: {} },
          },
        },
      },
    };
    expect(check('openrpc', document)).toBe('valid');
    const broken = structuredClone(document);
    broken.methods[0]!.examples[1]!.params = [{ value: 2, name: 7 } as never];
    expect(check('openrpc', broken)).toMatch(/name must be string/);
    // As the OpenRPC meta-schema has it: an example is named, a content descriptor has a schema.
    broken.methods[0]!.examples[1]!.params = [{ value: 2 } as never];
    expect(check('openrpc', broken)).toMatch(/must have required property 'name'/);
    const schemaless = structuredClone(document);
    delete (schemaless.methods[0]!.params[0] as { schema?: unknown }).schema;
    expect(check('openrpc', schemaless)).toMatch(/must have required property 'schema'/);
  });

  it('they refuse broken files', () => {
    expect(check('users', { alice: { instances: 'crm' } })).toMatch(/instances must be array/);
    expect(check('users', { 'bad name': { instances: [] } })).toMatch(
      /property name must be valid/,
    );
    expect(check('instance', { methods: [{ name: 'rpc.x' }] })).toMatch(/must NOT be valid/);
    expect(check('instance', { methods: [{ name: 'x', paramStructure: 'any' }] })).toMatch(
      /allowed values/,
    );
    expect(
      check('openrpc', { openrpc: '2.0.0', info: { title: 't', version: '1' }, methods: [] }),
    ).toMatch(/must match pattern/);
  });
});
