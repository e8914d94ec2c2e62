/** What node's file-system codes mean, in words: ENOENT and its kind are not for people. */
export const FILE_PROBLEMS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a folder',
  ENOTREG: 'not a regular file',
  ENOTDIR: 'a folder on its path is a file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENAMETOOLONG: 'name too long for the file system',
  ENOSPC: 'no space left on the device',
  EROFS: 'read-only file system',
};

/** Why a file could not be read or written, in words; anything rarer in node's own. */
export function fileProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined && Object.hasOwn(FILE_PROBLEMS, code)) return FILE_PROBLEMS[code]!;
  return error instanceof Error ? error.message : String(error);
}

/** An error's facts when a folder could not be written: the folder, and node's code for why. */
export function unwritableFacts(folder: string, error: unknown): Record<string, string> {
  const errno = (error as NodeJS.ErrnoException | undefined)?.code;
  return { folder, ...(errno === undefined ? {} : { errno }) };
}
