import type { HintRule } from './facts.js';
import { textOf } from './facts.js';
import { loginHint } from './session-hints.js';

/** The profiles' store (src/store/): the OS credential store, and the lock of the config file. */
export const storeHint: HintRule = (code, facts) => {
  switch (code) {
    case 'keychain_corrupt': {
      const profile = textOf(facts.profile);
      return profile === undefined
        ? undefined
        : `log in again to replace it: ${loginHint(profile)}`;
    }
    case 'keychain_unavailable':
      return textOf(facts.profile) === undefined
        ? undefined
        : 'log in again here; dasvc login --insecure-storage keeps them in the config file (0600)';
    case 'lock_failed':
    case 'lock_timeout':
      return textOf(facts.lock) === undefined ? undefined : 'remove it if no dasvc is running';
    default:
      return undefined;
  }
};
