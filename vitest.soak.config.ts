import { defineConfig } from 'vitest/config';

/**
 * `npm run soak`: tests whose verdict is a rate over many random trials, so a correct build can
 * still fail one now and then. They are not part of `npm test` (the gate must not flake); the
 * deterministic tests of the same features are. Run it after touching what a soak test measures.
 */
export default defineConfig({
  test: {
    include: ['test/soak/**/*.soak.ts'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One file at a time: a soak test measures, and its neighbours would be its noise.
    maxWorkers: 1,
    setupFiles: ['test/helpers/per-file.ts'],
    globalSetup: ['test/helpers/leftovers.ts'],
  },
});
