import { defineConfig } from 'vitest/config';

/**
 * Tests whose figure is a rate under random timing (kill -9 at random moments of a refresh): they
 * run after the rest, alone, so that another test file's CPU does not widen the window they
 * measure (two workers on two cores lost 3 of 40 where a quiet machine loses 0.5).
 */
const ALONE = ['test/integration/cli-refresh-kill.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Each file gets its own mock on its own port; files in parallel keep the suite fast on 2 cores.
    // vitest's default is one worker fewer than the cores (1 here), but much of the suite waits
    // (child processes, D-Bus, Chromium, timers): two files at once cut the wall time by a third,
    // three by a tenth more (75 → 68 s here), four hardly more (65 s) for twice the module loading.
    pool: 'forks',
    maxWorkers: 3,
    setupFiles: ['test/helpers/fast-check-seed.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: ALONE,
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: 'alone', include: ALONE, sequence: { groupOrder: 1 } } },
    ],
  },
});
