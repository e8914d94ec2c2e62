import type * as Msw from 'msw';
import type { HttpHandler } from 'msw';
import { UsageError } from '../errors.js';
import { isObject } from '../util/guards.js';
import type { Untyped } from '../client/typed-api.js';
import type { MockOptions } from './core/types.js';
import { createMockApp } from './index.js';

/**
 * msw itself, or a clear error when it is not installed: it is an optional peer dependency
 * (SPEC §1), present in the projects that use `dasvc/msw` and absent from the CLI's install.
 */
async function loadMsw(): Promise<typeof Msw> {
  try {
    return await import('msw');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    // Only msw itself missing; a broken msw install (one of its own dependencies gone) stays as is.
    if (code === 'ERR_MODULE_NOT_FOUND' && message.includes("package 'msw'")) {
      throw new UsageError(
        'dasvc/msw needs msw, an optional peer dependency that is not installed: run npm install -D msw',
        { code: 'msw_missing', cause: error },
      );
    }
    throw error;
  }
}

/**
 * Options of createMockHandlers: where the fake service lives, plus the mock's options; `A`, the
 * `Api` of `dasvc types`, types the `methods` answered before the fixtures (SPEC §10).
 */
export interface MockHandlersOptions<A = Untyped> extends Omit<MockOptions<A>, 'basePath'> {
  /** e.g. `https://das.example.test` (a path prefix is allowed). */
  baseUrl: string;
}

/**
 * `dasvc/msw`'s functions, once msw is loaded (it is imported as an ES module, the integrator's
 * own copy): src/mock/msw.ts waits for them at its top level, as the built package's entry does.
 */
export async function mswExports() {
  const { http } = await loadMsw();
  function createMockHandlers<A = Untyped>(options: MockHandlersOptions<A>): HttpHandler[] {
    const { baseUrl, ...rest } = isObject(options) ? options : ({} as typeof options);
    const base = URL.canParse(String(baseUrl)) ? new URL(String(baseUrl)) : undefined;
    if (!base || (base.protocol !== 'http:' && base.protocol !== 'https:')) {
      throw new UsageError(
        `baseUrl must be the http(s) URL the handlers answer for, got ${JSON.stringify(baseUrl)}`,
        { code: 'bad_url' },
      );
    }
    // The server's port and host are taken and mean nothing here (the options mirror the flags,
    // SPEC §1); a basePath of the caller's would be replaced by baseUrl's: refused, not lost.
    if (Object.hasOwn(rest, 'basePath'))
      throw new UsageError(
        'createMockHandlers() takes no basePath: baseUrl says where it answers',
        {
          code: 'bad_option',
        },
      );
    const basePath = base.pathname.replace(/\/+$/, '');
    const app = createMockApp<A>({ ...rest, basePath });
    const origin = `${base.origin}${basePath}`;
    return [http.all(`${origin}/*`, ({ request }) => app(request))];
  }
  return { createMockHandlers };
}
