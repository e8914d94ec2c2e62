// Run before every test file (vitest setupFiles). Workers keep the modules they loaded from file
// to file (isolate: false), so what must happen once per file is registered here, not at a
// module's top level, which runs once per worker.
import { afterAll } from 'vitest';
import { removeScratchDirs } from './scratch.js';
import './fast-check-seed.js';

afterAll(removeScratchDirs);
