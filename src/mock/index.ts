import type { Untyped } from '../client/typed-api.js';
import type { MockOptions } from './core/types.js';
import { fromFetchRequest, internalError, toFetchResponse } from './adapters/fetch-adapter.js';
import { checkMockOptions, createMockCore } from './core/mock-core.js';
import { serverOptions } from './adapters/mock-server.js';

export type { MockOptions, RequestNote } from './core/types.js';
export type { MethodContext, MethodHandler, MethodOverrides } from './core/method-overrides.js';
export type { JournalEntry } from './core/journal.js';
export { startMockServer, type MockServer } from './adapters/mock-server.js';

/** The mock as a fetch handler; `close()` flushes the state file. */
export type MockApp = ((request: Request) => Promise<Response>) & { close(): Promise<void> };

/**
 * The mock service (SPEC §5) as a fetch-style handler `(Request) => Promise<Response>`, returned
 * synchronously; computed-method modules and the routes load on the first request.
 */
export function createMockApp<A = Untyped>(options: MockOptions<A> = {}): MockApp {
  checkMockOptions(options);
  serverOptions(options as MockOptions);
  // `A` types the `methods` option only: the mock takes any functions there at run time.
  const core = createMockCore(options as MockOptions);
  const app = async (request: Request): Promise<Response> => {
    try {
      return toFetchResponse(await core.handle(fromFetchRequest(request)), request.method);
    } catch {
      return internalError();
    }
  };
  return Object.assign(app, {
    close: () => {
      core.closing();
      return core.close();
    },
  });
}
