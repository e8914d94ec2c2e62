import type { Facts, HintRule } from './facts.js';
import { textOf } from './facts.js';
import { loginHint } from './session-hints.js';

/** Node's codes for a folder that does not let this user write in it. */
const NOT_WRITABLE = new Set(['EROFS', 'EACCES', 'EPERM']);

/** For a folder that could not be written: to make it writable, when that is why. */
function folderHint(facts: Facts): string | undefined {
  const folder = textOf(facts.folder);
  const errno = textOf(facts.errno);
  if (folder === undefined || errno === undefined || !NOT_WRITABLE.has(errno)) return undefined;
  return `make ${folder} writable`;
}

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
      return folderHint(facts);
    case 'config_unwritable': {
      const hint = folderHint(facts);
      return hint && `${hint}, or set DASVC_CONFIG_DIR to a folder that is`;
    }
    case 'lock_timeout':
      return textOf(facts.lock) === undefined ? undefined : 'remove it if no dasvc is running';
    default:
      return undefined;
  }
};
