import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMockCore } from '../../../src/mock/core/mock-core.js';

describe('createMockCore', () => {
  it('an invalid JSON Schema stops the making of the mock naming file, JSON pointer and the validator message', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dasvc-fx-'));
    try {
      mkdirSync(join(dir, 'instances'));
      writeFileSync(join(dir, 'clients.txt'), 'demo-client:demo-secret\n');
      writeFileSync(join(dir, 'users.json'), '{"alice":{"instances":["crm"]}}');
      writeFileSync(
        join(dir, 'instances', 'crm.json'),
        '{"methods":[{"name":"x","params":[{"name":"a","schema":{"type":"int"}}]}]}',
      );
      expect(() => createMockCore({ fixtures: dir })).toThrow(
        /crm\.json: \/methods\/0\/params\/0\/schema: invalid JSON Schema: schema is invalid: data\/type/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
