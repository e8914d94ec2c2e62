/** A word as a POSIX shell reads it back: quoted when it holds anything but plain URL characters. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
