/** Why a file could not be read, in words: node's codes (ENOENT, EISDIR) are not for people. */
export function fileProblem(error: unknown): string {
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case 'ENOENT':
      return 'no such file';
    case 'EISDIR':
      return 'it is a folder';
    case 'ENOTDIR':
      return 'a folder on its path is a file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}
