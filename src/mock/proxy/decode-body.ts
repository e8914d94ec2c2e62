import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

/**
 * An answer's body as text, its Content-Encoding undone; '' when that fails, or when the text
 * would be longer than `maxLength` bytes.
 */
export function decodeBody(
  bytes: Buffer,
  encoding: string | undefined,
  maxLength?: number,
): string {
  const options = maxLength === undefined ? {} : { maxOutputLength: maxLength };
  try {
    if (encoding === 'gzip' || encoding === 'x-gzip') {
      return gunzipSync(bytes, options).toString('utf8');
    }
    if (encoding === 'deflate') return inflateSync(bytes, options).toString('utf8');
    if (encoding === 'br') return brotliDecompressSync(bytes, options).toString('utf8');
  } catch {
    return '';
  }
  return maxLength !== undefined && bytes.length > maxLength ? '' : bytes.toString('utf8');
}
