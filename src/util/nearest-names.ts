/**
 * The optimal-string-alignment distance between two strings: insertions, deletions, substitutions
 * and swaps of two neighbours each cost 1 (`contcats` → `contacts` is one edit, not two).
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array<number>(rows * cols).fill(0);
  const at = (i: number, j: number) => d[i * cols + j]!;
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i * cols + j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The names nearest to `wanted`, at most `limit` (SPEC §3: an unknown method names the nearest
 * method names). First the closest spellings (a third of the name or less differs, at least 2 edits
 * allowed, case ignored), then the names that contain what was typed or are contained in it
 * (`list` → `contacts.list`), fewest edits first. None when nothing is near (a list of unrelated
 * names helps no one), unless `anyway`: then the names fewest edits away.
 */
export function nearestNames(
  wanted: string,
  names: readonly string[],
  limit = 3,
  anyway = false,
): string[] {
  const w = wanted.toLowerCase();
  const scored = [...new Set(names)]
    .filter((name) => name !== wanted)
    .map((name) => {
      const n = name.toLowerCase();
      const distance = editDistance(w, n);
      const close = distance <= Math.max(2, Math.floor(Math.max(w.length, n.length) / 3));
      const contains = w.length >= 3 && (n.includes(w) || w.includes(n));
      return { name, distance, close, contains };
    });
  const best = Math.min(...scored.filter((c) => c.close).map((c) => c.distance));
  const near = (c: { close: boolean; contains: boolean }) => c.close || c.contains;
  const all = anyway && !scored.some(near);
  return scored
    .map((c) => ({ ...c, closest: c.close && c.distance === best }))
    .filter((c) => all || c.closest || c.contains)
    .sort(
      (x, y) =>
        Number(y.closest) - Number(x.closest) ||
        x.distance - y.distance ||
        x.name.localeCompare(y.name),
    )
    .slice(0, limit)
    .map((c) => c.name);
}
