import { describe, expect, it } from 'vitest';
import { createSchemaCompiler } from '../../../src/mock/fixture-format/json-schema.js';

describe('createSchemaCompiler (ajv, full JSON Schema)', () => {
  it('checks every keyword and answers with the validator message naming the value', async () => {
    const { compile } = await createSchemaCompiler();
    expect(compile({ type: 'integer', minimum: 1 })(1, 'id')).toBeUndefined();
    expect(compile({ type: 'integer' })(1.5, 'id')).toBe('id must be integer');
    // JSON.parse turns 1e400 into Infinity: no JSON number, so no integer nor number.
    expect(compile({ type: 'integer' })(JSON.parse('1e400'), 'id')).toBe('id must be integer');
    expect(compile({ type: 'number' })(JSON.parse('-1e400'), 'x')).toBe('x must be number');
    expect(compile({ type: 'integer', minimum: 1 })(0, 'id')).toBe('id must be >= 1');
    expect(compile({ enum: ['a'] })('b', 'x')).toBe('x must be equal to one of the allowed values');
    expect(compile({ type: 'string', pattern: '^a' })('b', 'x')).toBe('x must match pattern "^a"');
    expect(compile({ type: 'array', items: { type: 'string' } })(['a', 1], 'x')).toBe(
      'x/1 must be string',
    );
    expect(compile({ oneOf: [{ type: 'string' }, { type: 'integer' }] })(true, 'x')).toBe(
      'x must be string, x must be integer, x must match exactly one schema in oneOf',
    );
    expect(compile({ type: 'string', format: 'email' })('nope', 'x')).toBe(
      'x must match format "email"',
    );
    const o = compile({
      type: 'object',
      required: ['a'],
      additionalProperties: false,
      properties: { a: { type: 'number' } },
    });
    // The member it may not have is named; a problem two branches share is said once.
    expect(o({ a: 1, b: 2 }, 'o')).toBe('o must NOT have additional properties ("b")');
    const either = compile({ oneOf: [{ type: 'string', minLength: 5 }, { type: 'string' }] });
    expect(either(1, 'x')).toBe('x must be string, x must match exactly one schema in oneOf');
    // A long name is cut, and what it holds cannot draw on a terminal.
    expect(o({ a: 1, [`${'k'.repeat(80)}\u001b[2J`]: 2 }, 'o')).toBe(
      `o must NOT have additional properties ("${'k'.repeat(59)}…)`,
    );
    expect(o({}, 'o')).toBe("o must have required property 'a'");
    expect(compile(false)(1, 'x')).toBe('x boolean schema is false');
  });
  it('resolves $ref into the components of an OpenRPC document', async () => {
    const { compile } = await createSchemaCompiler();
    const doc = { components: { schemas: { Id: { type: 'integer', minimum: 2 } } } };
    const check = compile({ properties: { id: { $ref: '#/components/schemas/Id' } } }, doc);
    expect(check({ id: 2 }, 'p')).toBeUndefined();
    expect(check({ id: 1 }, 'p')).toBe('p/id must be >= 2');
  });
  it('refuses an invalid schema with the validator message', async () => {
    const { compile } = await createSchemaCompiler();
    expect(() => compile({ type: 'integr' })).toThrow(/schema is invalid/);
    // Refused again: a failed compile is not remembered as a validator.
    expect(() => compile({ type: 'integr' })).toThrow(/schema is invalid/);
  });
  it('shares compiled schemas between mocks, never between different components or ids', async () => {
    // The process-wide cache is keyed by the schema's text and its document's components: the
    // same `$ref` text in two documents is two validators.
    const ref = { properties: { id: { $ref: '#/components/schemas/Id' } } };
    const doc = (minimum: number) => ({
      components: { schemas: { Id: { type: 'integer', minimum } } },
    });
    const a = (await createSchemaCompiler()).compile(ref, doc(2));
    const b = (await createSchemaCompiler()).compile(ref, doc(5));
    const again = (await createSchemaCompiler()).compile(structuredClone(ref), doc(2));
    expect([a({ id: 3 }, 'p'), b({ id: 3 }, 'p'), again({ id: 3 }, 'p')]).toEqual([
      undefined,
      'p/id must be >= 5',
      undefined,
    ]);
    // By pointer into the document, as fixtures compile an OpenRPC document's schemas: the same
    // pointer in two documents is two validators, the same document one.
    const at = (minimum: number) => ({
      methods: [{ params: [{ schema: ref }] }],
      ...doc(minimum),
    });
    const pointer = '/methods/0/params/0/schema';
    const [p2, p5, p2again] = [at(2), at(5), at(2)].map((d) =>
      createSchemaCompiler().compile(ref, d, pointer),
    );
    expect([p2!({ id: 3 }, 'p'), p5!({ id: 3 }, 'p'), p2again!({ id: 1 }, 'p')]).toEqual([
      undefined,
      'p/id must be >= 5',
      'p/id must be >= 2',
    ]);
    // Past the documents one ajv takes, a new one takes the next; what was compiled keeps working.
    for (let minimum = 10; minimum < 80; minimum++)
      createSchemaCompiler().compile(ref, at(minimum), pointer);
    expect([p2!({ id: 3 }, 'p'), p5!({ id: 3 }, 'p')]).toEqual([undefined, 'p/id must be >= 5']);
    expect(createSchemaCompiler().compile(ref, at(5), pointer)({ id: 3 }, 'p')).toBe(
      'p/id must be >= 5',
    );
    // One `$id` with two meanings (two fixture folders in one process): each keeps its own.
    const first = (await createSchemaCompiler()).compile({ $id: 'urn:dasvc:test', type: 'string' });
    const second = (await createSchemaCompiler()).compile({
      $id: 'urn:dasvc:test',
      type: 'integer',
    });
    expect([first('a', 'x'), first(1, 'x'), second(1, 'x'), second('a', 'x')]).toEqual([
      undefined,
      'x must be string',
      undefined,
      'x must be integer',
    ]);
  });
});
