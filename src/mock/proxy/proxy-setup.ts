// The proxy side of the mock assembled from its options: secret collector, recorder,
// contract check, and the forwarding proxy they watch. Loaded only when `proxy` is set.
import type { Fixtures } from '../fixture-format/fixture-format.js';
import type { MockOptions } from '../core/types.js';
import type { ProxyHost } from '../core/context.js';
import { parseScrubList } from './scrub.js';
import type { Env } from '../../util/env.js';
import { SecretValues } from '../../util/secret-values.js';
import { createProxy } from './proxy.js';
import type { ProxyTap } from './proxy-tap.js';
import { Recorder } from './recorder.js';
import { ContractTap, SecretTap } from './taps.js';

/**
 * Starts proxying to `upstream`: reads the record folder (a broken file throws), opens the agent,
 * which reads its timeout and proxy variables from `env` (the process's when absent).
 */
export async function startProxying(
  upstream: string,
  options: MockOptions,
  fixtures: Fixtures,
  now: () => number,
  env?: Env,
): Promise<ProxyHost> {
  const secrets = new SecretValues();
  // The secret collector serves the recorder and the contract check (which mask what they keep):
  // a plain --proxy has no tap at all, and forwards without building anything for one.
  const taps: ProxyTap[] = [];
  const collecting = options.record !== undefined || options.validate === true;
  if (collecting) taps.push(new SecretTap(secrets));
  let recorder: Recorder | undefined;
  if (options.record !== undefined) {
    recorder = new Recorder({
      dir: options.record,
      user: options.recordUser ?? 'recorded',
      scrub: parseScrubList(options.scrub),
      secrets,
      ...(options.warn ? { warn: options.warn } : {}),
    });
    taps.push(recorder);
  }
  const contract = options.validate
    ? new ContractTap(fixtures, secrets, options.warn, now)
    : undefined;
  if (contract) taps.push(contract);
  const proxy = await createProxy(upstream, taps, env);
  return {
    forward: proxy.forward,
    ...(contract ? { violations: contract } : {}),
    ...(collecting ? { maskText: (text: string) => secrets.maskText(text) } : {}),
    close: async () => {
      recorder?.close();
      await proxy.close();
    },
  };
}
