// `dasvc init` in-process with scripted answers (SPEC §3): a profile written again keeps only what
// still belongs to it, and a question whose answer would leave the profile unusable is asked again.
import { afterAll, describe, expect, it } from 'vitest';
import { run as initRun } from '../../src/cli/commands/init/run.js';
import { run as loginRun } from '../../src/cli/commands/login/run.js';
import type { Prompter } from '../../src/client/resolve-settings.js';
import { createMockApp } from '../../src/mock/index.js';
import { cleanup, fakeTerminal, type FakeTerminal } from '../helpers/cli-in-process.js';
import { appTransport, approvingBrowser } from '../helpers/in-process.js';

const app = createMockApp({ autoApprove: 'alice', log: () => undefined });
const terminals: FakeTerminal[] = [];
afterAll(async () => {
  for (const t of terminals) cleanup(t);
  await app.close();
});

function terminal(configDir?: string): FakeTerminal {
  const t = fakeTerminal({
    send: appTransport(app),
    openBrowser: approvingBrowser(app),
    ...(configDir === undefined ? {} : { configDir }),
  });
  terminals.push(t);
  return t;
}

/**
 * Answers as a person types them, as @inquirer/prompts takes them: an empty answer is the
 * default, and an answer that `validate` refuses is said and the question asked again.
 */
function scripted(answers: string[], refusals: string[]): Prompter {
  return {
    input(message, options = {}) {
      for (;;) {
        const typed = answers.shift();
        if (typed === undefined) throw new Error(`no answer left for ${message}`);
        const answer = typed || options.default || '';
        const verdict = options.validate?.(answer) ?? true;
        if (verdict === true) return Promise.resolve(answer);
        refusals.push(`${message} ${verdict}`);
      }
    },
    select(_message, _choices, defaultValue) {
      const typed = answers.shift();
      return Promise.resolve((typed || defaultValue) as never);
    },
  };
}

/** A fresh config dir logged in to the mock as http://das.test (scope crm). */
async function loggedIn(extra: object = {}): Promise<FakeTerminal> {
  const t = terminal();
  const login = { clientId: 'demo-client', clientSecret: 'demo-secret', scope: 'crm' };
  await loginRun({ baseUrl: 'http://das.test', ...login, ...extra, browser: true }, t.deps);
  return t;
}

describe('dasvc init', () => {
  // Regression: written again with another base URL, the profile kept the endpoint URLs and the
  // tokens of the old installation, and every request still went there.
  it('another base URL or client id: stored endpoints and tokens go, with a word on stderr', async () => {
    const t = await loggedIn({ tokenUrl: 'http://das.test/webservice/authorize' });
    expect(t.store.profile('default')!.tokens).toBeDefined();
    const refusals: string[] = [];
    const again = terminal(t.configDir);
    // Profile name, base URL, client id, secret, scope: Enter keeps all but the base URL.
    const prompter = scripted(['', 'http://other.test/', '', '', '', ''], refusals);
    await initRun({}, { ...again.deps, prompter });
    const profile = again.store.profile('default')!;
    expect(profile).toMatchObject({ baseUrl: 'http://other.test', clientId: 'demo-client' });
    expect(profile.endpoints).toBeUndefined();
    expect(profile.tokens).toBeUndefined();
    // The secret was the old installation's: not offered to keep, not kept.
    expect(profile.clientSecret).toBeUndefined();
    expect(again.stderr.text).toContain('The tokens stored for http://das.test are forgotten');

    // Another client id: the stored secret was the old client's, and is not kept.
    const third = terminal(t.configDir);
    await initRun(
      {},
      { ...third.deps, prompter: scripted(['', '', 'other-client', '', '', ''], refusals) },
    );
    expect(third.store.profile('default')).toMatchObject({ clientId: 'other-client' });
    expect(third.store.profile('default')!.clientSecret).toBeUndefined();
    expect(refusals).toEqual([]);
  });

  it('the same base URL and client keep the endpoints and the tokens', async () => {
    const t = await loggedIn();
    const before = t.store.profile('default')!;
    const again = terminal(t.configDir);
    await initRun({}, { ...again.deps, prompter: scripted(['', '', '', '', 'crm wiki', ''], []) });
    const after = again.store.profile('default')!;
    expect(after.scope).toBe('crm wiki');
    expect(after.tokens).toEqual(before.tokens);
    expect(after.clientSecret).toBe('demo-secret');
    expect(again.stderr.text).not.toContain('forgotten');
  });

  // Regression: a profile logged in with endpoint flags alone (no base URL) kept its endpoints
  // and tokens when init gave it a base URL.
  it('a profile with endpoints and no base URL: a base URL given drops them and the tokens', async () => {
    const t = terminal();
    await loginRun(
      {
        authorizeUrl: 'http://das.test/webservice/authorize/',
        tokenUrl: 'http://das.test/webservice/authorize',
        clientId: 'demo-client',
        clientSecret: 'demo-secret',
        scope: 'crm',
        browser: true,
      },
      t.deps,
    );
    expect(t.store.profile('default')).toMatchObject({ endpoints: expect.any(Object) });
    expect(t.store.profile('default')!.baseUrl).toBeUndefined();
    const again = terminal(t.configDir);
    await initRun(
      {},
      { ...again.deps, prompter: scripted(['', 'http://other.test', '', '', '', ''], []) },
    );
    const profile = again.store.profile('default')!;
    expect(profile.endpoints).toBeUndefined();
    expect(profile.tokens).toBeUndefined();
    expect(again.stderr.text).toContain(
      'The tokens stored for the endpoints given at login are forgotten',
    );
  });

  // Regression: an empty client id and an empty scope were written, and the profile's first
  // login failed on them.
  it('asks again for an empty client id or scope', async () => {
    const t = terminal();
    const refusals: string[] = [];
    const prompter = scripted(
      ['', 'http://das.test', '', '   ', 'demo-client', 's', '  ', 'crm', ''],
      refusals,
    );
    await initRun({}, { ...t.deps, prompter });
    expect(t.store.profile('default')).toMatchObject({ clientId: 'demo-client', scope: 'crm' });
    expect(refusals).toEqual([
      'Client id: a client id is needed',
      'Client id: a client id is needed',
      'Scope (space-separated instance IDs): name at least one instance',
    ]);
  });
});
