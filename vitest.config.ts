import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Each file gets its own mock on its own port; files in parallel keep the suite fast on 2 cores.
    pool: 'forks',
    setupFiles: ['test/helpers/fast-check-seed.ts'],
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
