// Many fixed strings found in a text in one pass: a rolling hash of each position's first `width`
// characters picks the few needles that may start there. A masking pass over every string of a
// recording then costs the text's length, not its length times the number of secrets. Pure.

const BASE = 31;

/** `BASE` to the power `n`, modulo 2^32. */
function power(n: number): number {
  let p = 1;
  for (let i = 0; i < n; i++) p = Math.imul(p, BASE);
  return p;
}

/** A set of strings, each at least `width` characters long, found inside texts. */
export class NeedleSet {
  /** Hash of a needle's first `width` characters → the needles, longest first. */
  private readonly byHead = new Map<number, string[]>();
  private readonly all = new Set<string>();
  /** BASE^(width-1): what the character leaving the window weighed. */
  private readonly top: number;

  constructor(private readonly width: number) {
    this.top = power(width - 1);
  }

  get size(): number {
    return this.all.size;
  }

  private hash(text: string, from: number): number {
    let h = 0;
    for (let i = from; i < from + this.width; i++)
      h = (Math.imul(h, BASE) + text.charCodeAt(i)) | 0;
    return h;
  }

  /** Adds one needle (shorter than `width`: ignored); whether it was new. */
  add(needle: string): boolean {
    if (needle.length < this.width || this.all.has(needle)) return false;
    this.all.add(needle);
    const key = this.hash(needle, 0);
    const list = this.byHead.get(key) ?? [];
    list.push(needle);
    list.sort((a, b) => b.length - a.length);
    this.byHead.set(key, list);
    return true;
  }

  /**
   * `text` with every stretch that some needle covers replaced by `mask`: overlapping and
   * adjacent matches are one stretch, so no part of any needle is left showing.
   */
  replace(text: string, mask: string): string {
    const width = this.width;
    if (this.all.size === 0 || text.length < width) return text;
    let out = '';
    let copied = 0;
    let start = -1;
    let end = -1;
    let h = this.hash(text, 0);
    for (let i = 0; ; i++) {
      const list = this.byHead.get(h);
      if (list) {
        const found = list.find((needle) => text.startsWith(needle, i));
        if (found !== undefined) {
          if (i > end) {
            if (end !== -1) out += text.slice(copied, start) + mask;
            copied = end === -1 ? copied : end;
            start = i;
          }
          end = Math.max(end, i + found.length);
        }
      }
      if (i + width >= text.length) break;
      h =
        (Math.imul(h - Math.imul(text.charCodeAt(i), this.top), BASE) +
          text.charCodeAt(i + width)) |
        0;
    }
    if (end === -1) return text;
    return out + text.slice(copied, start) + mask + text.slice(end);
  }
}
