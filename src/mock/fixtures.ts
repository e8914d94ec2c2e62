import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { basename, join, relative, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import {
  fail,
  FixtureProblem,
  NAME,
  parseClients,
  parseInstance,
  parseUsers,
  type Fixtures,
  type InstanceFixture,
  type MethodHandler,
} from './fixture-format.js';

export { parseClients } from './fixture-format.js';
export type {
  ClientFixture,
  ContentDescriptor,
  Fixtures,
  HandlerContext,
  InstanceFixture,
  MethodFixture,
  MethodHandler,
  ParamDescriptor,
  UserFixture,
} from './fixture-format.js';

/** The package's own fixtures/ folder (two levels above dist/mock and src/mock). */
export function defaultFixturesDir(): string {
  return fileURLToPath(new URL('../../fixtures/', import.meta.url));
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    return fail(`cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}

function readJson(file: string): unknown {
  const text = readText(file);
  try {
    return JSON.parse(text);
  } catch (error) {
    return fail(`not valid JSON: ${(error as Error).message}`);
  }
}

function fixtureError(dir: string, file: string, problem: string): UsageError {
  const shown = relative(process.cwd(), file) || file;
  return new UsageError(`fixture ${shown}: ${problem}`, {
    code: 'bad_fixture',
    hint: `fix the file or point --fixtures at another folder (now ${dir})`,
  });
}

/** Runs `parse` on one file; any problem becomes a usage error naming the file. */
function withFile<T>(dir: string, file: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof FixtureProblem) throw fixtureError(dir, file, error.message);
    throw error;
  }
}

/** Reads a fixtures folder (sync: JSON and text only); handler modules load in loadHandlers(). */
export function loadFixtures(dirInput?: string): Fixtures {
  const dir = resolve(dirInput ?? defaultFixturesDir());
  if (!existsSync(dir)) {
    throw new UsageError(`fixtures folder ${dir} does not exist`, { code: 'bad_fixture' });
  }
  const clientsFile = join(dir, 'clients.txt');
  const clients = withFile(dir, clientsFile, () => parseClients(readText(clientsFile)));
  const instancesDir = join(dir, 'instances');
  const instances = new Map<string, InstanceFixture>();
  const names = withFile(dir, instancesDir, () => {
    try {
      return readdirSync(instancesDir)
        .filter((f) => f.endsWith('.json'))
        .sort();
    } catch (error) {
      return fail(`cannot list it (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
  });
  for (const fileName of names) {
    const file = join(instancesDir, fileName);
    const name = basename(fileName, '.json');
    withFile(dir, file, () => {
      if (!NAME.test(name)) fail(`instance name "${name}" must match ${NAME}`);
      instances.set(name, parseInstance(name, readJson(file), instancesDir));
    });
  }
  const usersFile = join(dir, 'users.json');
  const users = withFile(dir, usersFile, () => parseUsers(readJson(usersFile), instances));
  return { dir, clients, users, instances };
}

/** Imports the JS modules of computed methods; a missing file or export names the method. */
export async function loadHandlers(fixtures: Fixtures): Promise<void> {
  // Every module is imported at once (settled, so that a second failure is no unhandled
  // rejection); problems are then reported in fixture order.
  type Loaded = { module: Record<string, unknown> } | { error: unknown };
  const modules = new Map<string, Promise<Loaded>>();
  for (const instance of fixtures.instances.values()) {
    for (const { handlerRef: ref } of instance.methods.values()) {
      if (!ref || modules.has(ref.file)) continue;
      const importing = import(pathToFileURL(ref.file).href) as Promise<Record<string, unknown>>;
      modules.set(
        ref.file,
        importing.then(
          (module) => ({ module }),
          (error: unknown) => ({ error }),
        ),
      );
    }
  }
  for (const instance of fixtures.instances.values()) {
    const file = join(fixtures.dir, 'instances', `${instance.name}.json`);
    for (const method of instance.methods.values()) {
      const ref = method.handlerRef;
      if (!ref) continue;
      const loaded = await modules.get(ref.file)!;
      if ('error' in loaded) {
        const why = loaded.error instanceof Error ? loaded.error.message : String(loaded.error);
        throw fixtureError(
          fixtures.dir,
          file,
          `method "${method.name}": cannot load ${ref.file}: ${why}`,
        );
      }
      const fn = loaded.module[ref.exportName];
      if (typeof fn !== 'function') {
        throw fixtureError(
          fixtures.dir,
          file,
          `method "${method.name}": ${ref.file} exports no function "${ref.exportName}"`,
        );
      }
      method.handler = fn as MethodHandler;
    }
  }
}
