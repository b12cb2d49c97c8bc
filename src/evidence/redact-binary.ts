// Redaction inside binary files: every secret's bytes overwritten in place by as many `*` bytes.
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { TOKEN_RULES } from './redact-rules.js';

/** The byte that replaces each byte of a secret in a binary file. */
export const MASK = '*';
/** Bytes of overlap kept between chunks, so a secret or token split across two reads is still found. */
const CARRY = 8 * 1024;
const PEM = /-----BEGIN ([A-Z0-9 ]+ )?PRIVATE KEY-----[\s\S]*?-----END ([A-Z0-9 ]+ )?PRIVATE KEY-----/g;

/**
 * Copies `file` to `out` with every match of `values` (secrets as latin1 strings of their UTF-8 bytes), of
 * the known token formats and of private key blocks overwritten by MASK bytes of the same length. The
 * length is kept so that offsets inside the file (zip directories, tar headers, PNG chunks) still point at
 * the right place; checksums over the masked bytes no longer match, so a viewer may refuse the file: the
 * secret is gone at the cost of the file. Compressed content (gzip, zip deflate, PNG's IDAT) is not
 * decompressed: a secret inside it is not seen (see docs/security.md).
 */
export async function maskBinaryFile(file: string, out: string, values: RegExp | null): Promise<number> {
  const patterns = [...(values ? [values] : []), ...TOKEN_RULES.map((r) => r.pattern), PEM];
  const writer = createWriteStream(out, { encoding: 'latin1' });
  let count = 0;
  let carry = '';
  const mask = (text: string): string => {
    let result = text;
    for (const pattern of patterns) {
      pattern.lastIndex = 0;
      result = result.replace(pattern, (match) => {
        count++;
        return MASK.repeat(match.length);
      });
    }
    return result;
  };
  // A write that fails (the temporary file cannot be created, a full disk) must reject this call, not
  // surface as an unhandled 'error' event, nor leave it waiting for a 'drain' that never comes: the stream
  // keeps its error (writer.errored), the next write stops on it, and finished() rejects with it.
  writer.on('error', () => {});
  const write = async (text: string) => {
    if (writer.errored) throw writer.errored;
    if (!writer.write(text)) await once(writer, 'drain');
  };
  try {
    for await (const chunk of createReadStream(file, { encoding: 'latin1', highWaterMark: 256 * 1024 })) {
      const text = mask(carry + (chunk as string));
      // Masking keeps lengths, so the carried tail is the same bytes, already masked where a match ended in it.
      await write(text.slice(0, Math.max(0, text.length - CARRY)));
      carry = text.slice(Math.max(0, text.length - CARRY));
    }
    await write(mask(carry));
    writer.end();
    await finished(writer);
  } catch (error) {
    // Closed before this call returns, so that a failed call leaves no file open either.
    writer.destroy();
    await finished(writer).catch(() => undefined);
    throw error;
  }
  return count;
}
