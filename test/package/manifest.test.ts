// SPEC §1: the runtime dependencies, each for its job, msw and the types generator optional
// peers, and a Node floor that every runtime dependency's own `engines` accepts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

interface Manifest {
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const manifest = (dir: string): Manifest =>
  JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
const own = manifest(ROOT);

describe('package.json (SPEC §1)', () => {
  it('depends on what SPEC §1 names, msw only as an optional peer', () => {
    for (const name of ['commander', 'undici', 'open', '@inquirer/prompts', 'conf', 'chalk']) {
      expect(own.dependencies, name).toHaveProperty([name]);
    }
    expect(own.dependencies).not.toHaveProperty(['msw']);
    expect(own.peerDependencies).toHaveProperty(['msw']);
    expect(own.peerDependenciesMeta?.msw?.optional).toBe(true);
  });

  it('leaves json-schema-to-typescript (and prettier with it) to the projects that run dasvc types', () => {
    // They weigh more than the rest of the install together (docs/design/types-generation.md).
    const name = 'json-schema-to-typescript';
    expect(own.dependencies).not.toHaveProperty([name]);
    expect(own.dependencies).not.toHaveProperty(['prettier']);
    expect(own.peerDependencies).toHaveProperty([name]);
    expect(own.peerDependenciesMeta?.[name]?.optional).toBe(true);
  });

  it('asks for Node >= 20.18, and no runtime or peer dependency asks for more', () => {
    const floor = own.engines?.node ?? '';
    expect(semver.minVersion(floor)?.version).toMatch(/^20\.18\.\d+$/);
    for (const name of [
      ...Object.keys(own.dependencies ?? {}),
      ...Object.keys(own.peerDependencies ?? {}),
    ]) {
      const wanted = manifest(join(ROOT, 'node_modules', name)).engines?.node;
      if (wanted === undefined) continue;
      expect(semver.subset(floor, wanted), `${name} wants node ${wanted}`).toBe(true);
    }
  });
});
