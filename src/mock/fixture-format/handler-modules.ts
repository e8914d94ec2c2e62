// The JS modules of computed methods (`"handler": "file.mjs#name"`), imported once the folder
// is read: a module that does not load, or lacks the export, names the method and the file.
import { pathToFileURL } from 'node:url';
import { fixtureError } from './fixture-files.js';
import type { Fixtures, FixtureHandler } from './fixture-format.js';

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
    const file = instance.file;
    for (const method of instance.methods.values()) {
      const ref = method.handlerRef;
      if (!ref) continue;
      const loaded = await modules.get(ref.file)!;
      if ('error' in loaded) {
        const why = loaded.error instanceof Error ? loaded.error.message : String(loaded.error);
        throw fixtureError(
          fixtures.givenDir ?? fixtures.dir,
          file,
          `method "${method.name}": cannot load ${ref.file}: ${why}`,
        );
      }
      const fn = loaded.module[ref.exportName];
      if (typeof fn !== 'function') {
        throw fixtureError(
          fixtures.givenDir ?? fixtures.dir,
          file,
          `method "${method.name}": ${ref.file} exports no function "${ref.exportName}"`,
        );
      }
      method.handler = fn as FixtureHandler;
    }
  }
}

/** Whether ready() has work: computed-method modules to import or schemas to compile. */
export function needsLoading(fixtures: Fixtures): boolean {
  return [...fixtures.instances.values()].some((i) =>
    [...i.methods.values()].some(
      (m) =>
        m.handlerRef !== undefined ||
        m.unusableExamples !== undefined ||
        m.result?.schema !== undefined ||
        m.params.some((p) => p.schema !== undefined),
    ),
  );
}
