import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Env } from '../util/env.js';

/**
 * The directory of the config file, absolute: `DASVC_CONFIG_DIR` when set (SPEC §2; a relative one
 * from the working directory), else the OS config directory exactly as `conf` (env-paths, project
 * "dasvc", suffix "nodejs") would choose it, computed here so that reading the file does not need
 * to load `conf`. Absolute, because the OS credential store's entries are keyed by the file's path
 * (SPEC §9): `cfg` in two directories is two config dirs, which never share secrets.
 */
export function configDir(
  env: Env = process.env,
  platform: string = process.platform,
  cwd: string = process.cwd(),
): string {
  if (env.DASVC_CONFIG_DIR) return resolve(cwd, env.DASVC_CONFIG_DIR);
  const name = 'dasvc-nodejs';
  const home = homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Preferences', name);
  if (platform === 'win32')
    return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), name, 'Config');
  // An empty XDG_CONFIG_HOME is unset (XDG Base Directory spec), as env-paths reads it.
  return resolve(env.XDG_CONFIG_HOME || join(home, '.config'), name);
}

/** The config file itself (`config.json`, conf's default name). */
export function configFile(env: Env = process.env, cwd: string = process.cwd()): string {
  return join(configDir(env, process.platform, cwd), 'config.json');
}
