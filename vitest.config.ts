import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Each file gets its own mock on its own port; files in parallel keep the suite fast on 2 cores.
    // vitest's default is one worker fewer than the cores (1 here), but much of the suite waits
    // (child processes, D-Bus, Chromium, timers), so two files at once cut the wall time by a third.
    pool: 'forks',
    maxWorkers: 2,
    setupFiles: ['test/helpers/fast-check-seed.ts'],
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
