import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The directory of the config file: `DASVC_CONFIG_DIR` when set (SPEC §2), else the OS config
 * directory exactly as `conf` (env-paths, project "dasvc", suffix "nodejs") would choose it, computed
 * here so that reading the file does not need to load `conf`.
 */
export function configDir(
  env: NodeJS.ProcessEnv = process.env,
  platform = process.platform,
): string {
  if (env.DASVC_CONFIG_DIR) return env.DASVC_CONFIG_DIR;
  const name = 'dasvc-nodejs';
  const home = homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Preferences', name);
  if (platform === 'win32')
    return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), name, 'Config');
  return join(env.XDG_CONFIG_HOME ?? join(home, '.config'), name);
}

/** The config file itself (`config.json`, conf's default name). */
export function configFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'config.json');
}
