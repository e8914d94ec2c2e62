import { join, resolve } from 'node:path';
import envPaths from 'env-paths';
import type { Env } from '../util/env.js';

/**
 * The directory of the config file, absolute: `DASVC_CONFIG_DIR` when set (a relative one from the
 * working directory), else the OS config directory as `conf` would choose it, found by the library
 * conf itself calls for it (env-paths, project "dasvc"), so that reading the file needs no conf.
 * That library reads the process's own environment (XDG_CONFIG_HOME, APPDATA). Absolute, because
 * the OS credential store's entries are keyed by the file's path: `cfg` in two directories is two
 * config dirs, which never share secrets.
 */
export function configDir(env: Env = process.env, cwd: string = process.cwd()): string {
  return resolve(cwd, env.DASVC_CONFIG_DIR || envPaths('dasvc').config);
}

/** The config file itself (`config.json`, conf's default name). */
export function configFile(env: Env = process.env, cwd: string = process.cwd()): string {
  return join(configDir(env, cwd), 'config.json');
}
