import { existsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that load the native keyring binding in the test process: libdbus reads the session bus
 * address once per process, so each needs a process of its own (vitest's isolation).
 */
const OWN_PROCESS = ['test/store/keychain-fallback.test.ts', 'test/store/keychain-store.test.ts'];

/**
 * Files to leave out of a run, as paths separated by commas: `npm run bench:tests` measures the
 * suite without the browser tests this way (vitest's --exclude does not reach into projects).
 */
const LEFT_OUT = (process.env.DASVC_TEST_EXCLUDE ?? '').split(',').filter(Boolean);

/**
 * The files that take longest, longest first: they start at once, so that the run does not end
 * with one of them alone on a core. Most of their time is waiting (real shells, the credential
 * store's deadline, Chromium, npm), which the shorter files fill. vitest orders the rest: by the
 * last run's durations where it kept them, else by size (a fresh clone has no durations).
 */
const LONGEST = [
  'test/cli/completion.test.ts',
  'test/cli/keychain.test.ts',
  'test/package/packed-install.test.ts',
  'test/e2e/dashboard.test.ts',
  'test/cli/types.test.ts',
  'test/mock/state-file.test.ts',
  'test/e2e/browser-login.test.ts',
  'test/cli/refresh.test.ts',
  'test/mock/fuzz.test.ts',
  'test/cli/lock-wait.test.ts',
  'test/typegen/typed-consumer.test.ts',
];

/**
 * The order files start in: the files of a process of their own before all (met later, each
 * would end a worker of the suite, whose successor loads its modules again), then the longest.
 */
const FIRST = [...OWN_PROCESS, ...LONGEST];

// A renamed file would drop out of the list unnoticed: the run stops instead.
for (const path of FIRST) {
  if (!existsSync(new URL(path, import.meta.url)))
    throw new Error(`vitest.config.ts: ${path} is named to start first, and is no file`);
}

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const at = FIRST.findIndex((path) => file.moduleId.endsWith(`/${path}`));
      return at < 0 ? FIRST.length : at;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Each file gets its own mock on its own port; files in parallel keep the suite fast on 2 cores.
    // vitest's default is one worker fewer than the cores (1 here), but much of the suite waits
    // (child processes, D-Bus, Chromium, timers): two files at once cut the wall time by a third,
    // three a little more, four hardly more for twice the module loading.
    pool: 'forks',
    maxWorkers: 3,
    // A worker runs file after file with the modules it has loaded: a fresh process per file costs
    // a third of the suite's CPU in module loading alone. The source keeps
    // no state a test can see but the keyring's (OWN_PROCESS); a helper's once-per-file hooks go in
    // test/helpers/per-file.ts, since a module's top level now runs once per worker.
    isolate: false,
    sequence: { sequencer: LongestFirst },
    setupFiles: ['test/helpers/per-file.ts'],
    globalSetup: ['test/helpers/leftovers.ts', 'test/helpers/chromium-run.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: [...OWN_PROCESS, ...LEFT_OUT],
        },
      },
      {
        extends: true,
        test: {
          name: 'own-process',
          include: OWN_PROCESS,
          isolate: true,
        },
      },
    ],
  },
});
