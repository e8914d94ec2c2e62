// What the end-of-file leak scan (cli.ts, expectNoLeaksAfterAll) looks at: every CLI run's output
// and every secret seen. Per test file: per-file.ts empties it before each file, since workers
// keep this module from file to file.

/** Everything any CLI run of this file printed. */
export const transcript: {
  args: string[];
  stdout: string;
  stderr: string;
  allowSecrets: boolean;
}[] = [];

/** Every secret this file's runs saw (the demo client's from the start). */
export const secrets = new Set<string>();

/** A new file: no run yet, the demo clients' secrets alone. */
export function resetLeakState(): void {
  transcript.length = 0;
  secrets.clear();
  secrets.add('demo-secret').add('other-secret');
}

resetLeakState();
