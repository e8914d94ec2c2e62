// Run before every test file (vitest setupFiles). Workers keep the modules they loaded from file
// to file (isolate: false), so what must happen once per file is registered here, not at a
// module's top level, which runs once per worker.
import { afterAll } from 'vitest';
import { killChildren } from './children.js';
import { resetLeakState } from './leak-state.js';
import { stopRuns } from './in-process-mocks.js';
import { removeScratchDirs } from './scratch.js';
import './fast-check-seed.js';

// Before the file's own module runs (it may add secrets at its top level).
resetLeakState();
// After hooks run last-registered first: the children and the mocks run in-process go before the
// folders they may be writing.
afterAll(removeScratchDirs);
afterAll(killChildren);
afterAll(stopRuns);
