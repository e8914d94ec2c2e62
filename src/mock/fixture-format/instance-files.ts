// The files of a folder's instances/, one instance each: listed by name, each read in turn, and
// every broken one named in one usage error, since one fix per run would be slow. The fixtures
// loader and the folder `--record` adds to read them alike.
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { UsageError } from '../../errors.js';
import { fail } from './descriptors.js';
import { withFile, type FolderFacts } from './fixture-files.js';

/** OpenRPC documents as fixtures: `instances/<name>.openrpc.json`. */
export const OPENRPC_SUFFIX = '.openrpc.json';

/** One JSON file of instances/. */
export interface InstanceFile {
  /** The instance it names: its file name less `.openrpc.json` or `.json`. */
  name: string;
  file: string;
  openrpc: boolean;
}

/**
 * Calls `read` on each JSON file of `instancesDir`, by file name. A problem (a FixtureProblem)
 * in one is the usage error naming that file under `givenDir`, with `facts`; the others are read
 * still, and every broken file is named, a line each.
 */
export function readInstanceFiles(
  givenDir: string,
  instancesDir: string,
  facts: FolderFacts,
  read: (entry: InstanceFile) => void,
): void {
  const fileNames = withFile(
    givenDir,
    instancesDir,
    () => {
      try {
        return readdirSync(instancesDir)
          .filter((f) => f.endsWith('.json'))
          .sort();
      } catch (error) {
        return fail(`cannot list it (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
      }
    },
    facts,
  );
  const refused: UsageError[] = [];
  for (const fileName of fileNames) {
    const openrpc = fileName.endsWith(OPENRPC_SUFFIX);
    const entry: InstanceFile = {
      name: basename(fileName, openrpc ? OPENRPC_SUFFIX : '.json'),
      file: join(instancesDir, fileName),
      openrpc,
    };
    try {
      withFile(givenDir, entry.file, () => read(entry), facts);
    } catch (error) {
      if (!(error instanceof UsageError) || error.code !== 'bad_fixture') throw error;
      refused.push(error);
    }
  }
  if (refused.length === 1) throw refused[0];
  if (refused.length > 1) {
    throw new UsageError(refused.map((error) => error.message).join('\n'), {
      code: 'bad_fixture',
      facts,
    });
  }
}
