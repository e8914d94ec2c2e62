import { loadStyles } from '../../../util/styles.js';
import type { Writer } from '../../output.js';

/** Options of `dasvc demo`. */
export interface DemoCommandOptions {
  browser?: boolean;
  json?: boolean;
  color?: boolean;
  verbose?: boolean;
}

/** What `dasvc demo` touches: the terminal, the browser and the clock. */
export interface DemoRunDeps {
  env: NodeJS.ProcessEnv;
  stdout: Writer;
  stderr: Writer;
  openBrowser: (url: string) => Promise<void>;
  now: () => number;
}

/** `dasvc demo` (SPEC §3): runs the narrated flow on an embedded mock; nothing touches the store. */
export async function run(options: DemoCommandOptions, deps: DemoRunDeps): Promise<void> {
  const [{ runDemo }, { startMockServer }] = await Promise.all([
    import('../../../demo/run-demo.js'),
    import('../../../mock/index.js'),
  ]);
  await runDemo(
    {
      browser: Boolean(options.browser),
      json: Boolean(options.json),
      verbose: Boolean(options.verbose),
    },
    {
      stdout: deps.stdout,
      stderr: deps.stderr,
      style: await loadStyles(options.color !== false, deps.stdout, deps.env),
      openBrowser: deps.openBrowser,
      startMock: startMockServer,
      now: deps.now,
      env: deps.env,
    },
  );
}
