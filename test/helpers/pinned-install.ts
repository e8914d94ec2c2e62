// The empty project the packed-install test installs the tarball into, pinned to the versions of
// the repository's package-lock.json: a consumer's fresh install resolves the same ranges, but a
// test that resolved them anew would measure whatever a dependency released last (the footprint
// goal has little margin), and would ask the registry for every package's versions. With this lock,
// `npm ci --prefer-offline` takes each package by its integrity from the npm cache that the
// repository's own `npm ci` filled, and the registry only for what the cache lacks.

interface LockEntry {
  dev?: boolean;
  devOptional?: boolean;
  [field: string]: unknown;
}

interface Manifest {
  version: string;
  license?: string;
  bin?: Record<string, string>;
  engines?: Record<string, string>;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, unknown>;
}

/**
 * The project's package.json and package-lock.json, as text: `dasvc` from `tarball` (a path
 * relative to the project), and every package the repository's lock installs for dasvc's own
 * dependencies where that lock puts it. Packages there only for development (`dev`, or
 * `devOptional`: an optional peer that only a dev dependency brings) stay out, as `npm install
 * dasvc` leaves them out.
 */
export function pinnedProject(
  name: string,
  tarball: string,
  manifest: Manifest,
  lock: { packages: Record<string, LockEntry> },
): { packageJson: string; packageLock: string } {
  const spec = `file:${tarball}`;
  const dasvc = {
    version: manifest.version,
    resolved: spec,
    license: manifest.license,
    dependencies: manifest.dependencies,
    optionalDependencies: manifest.optionalDependencies,
    bin: manifest.bin,
    engines: manifest.engines,
    peerDependencies: manifest.peerDependencies,
    peerDependenciesMeta: manifest.peerDependenciesMeta,
  };
  const packages: Record<string, unknown> = {
    '': { name, dependencies: { dasvc: spec } },
    'node_modules/dasvc': dasvc,
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path !== '' && !entry.dev && !entry.devOptional) packages[path] = entry;
  }
  const project = { name, private: true, type: 'module', dependencies: { dasvc: spec } };
  return {
    packageJson: JSON.stringify(project, null, 2),
    packageLock: JSON.stringify({ name, lockfileVersion: 3, requires: true, packages }, null, 2),
  };
}
