// Redaction inside binary files: every secret's bytes overwritten in place by as many `*` bytes.
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { FormMatcher } from './redact-matcher.js';
import { TOKEN_RULES } from './redact-rules.js';
import { SeparatedSecrets, separatedSpans } from './redact-separated.js';
import { decodedViews, lineSpans } from './redact-views.js';
import type { Span } from './redact-wrapped.js';

/** The byte that replaces each byte of a secret in a binary file. */
export const MASK = '*';
/** Bytes of overlap kept between chunks, so a secret or token split across two reads is still found. */
const CARRY = 8 * 1024;
const PEM = /-----BEGIN ([A-Z0-9 ]+ )?PRIVATE KEY-----[\s\S]*?-----END ([A-Z0-9 ]+ )?PRIVATE KEY-----/g;

/**
 * Copies `file` to `out` with every match of `values` (secrets as latin1 strings of their UTF-8 bytes, in
 * every form redact-forms.ts lists: UTF-16 included), of `separated` (the same secrets with separators
 * between their bytes, redact-separated.ts), of the known token formats and of private key blocks
 * overwritten by MASK bytes of the same length. The
 * length is kept so that offsets inside the file (zip directories, tar headers, PNG chunks) still point at
 * the right place; checksums over the masked bytes no longer match, so a viewer may refuse the file: the
 * secret is gone at the cost of the file. Compressed content (gzip, zip deflate, PNG's IDAT) is not
 * decompressed: a secret inside it is not seen (see docs/security.md).
 */
export async function maskBinaryFile(
  file: string,
  out: string,
  values: FormMatcher | null,
  separated: readonly string[] = [],
): Promise<number> {
  const patterns = [...TOKEN_RULES.map((r) => r.pattern), PEM];
  const writer = createWriteStream(out, { encoding: 'latin1' });
  // The overlap holds the longest spelled-out or percent-encoded secret (3 characters a byte) too, so one
  // that ends in this read and started in the one before is wholly in what is scanned.
  const carryBytes = Math.max(CARRY, new SeparatedSecrets(separated).longest, 3 * Math.max(0, ...separated.map((s) => s.length)));
  let count = 0;
  let carry = '';
  const mask = (text: string): string => {
    let result = text;
    // What was masked in the carried tail is masked already: found again, it is `*` and matches nothing.
    const found = [...separatedSpans(text, separated), ...(values?.spans(text) ?? []), ...viewSpans(text, values, separated)];
    if (found.length > 0) {
      // One copy for all of them (a read may hold thousands).
      const bytes = Buffer.from(result, 'latin1');
      for (const span of found) {
        bytes.fill(MASK, Math.max(0, span.start), span.end);
        count++;
      }
      result = bytes.toString('latin1');
    }
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
      await write(text.slice(0, Math.max(0, text.length - carryBytes)));
      carry = text.slice(Math.max(0, text.length - carryBytes));
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

/** `data` with what maskBinaryFile masks masked (same length), and how many matches: for a file held in memory. */
export function maskBuffer(data: Buffer, values: FormMatcher | null, separated: readonly string[] = []): { data: Buffer; count: number } {
  const text = data.toString('latin1');
  const spans = [
    ...new SeparatedSecrets(separated).feed(text, false),
    ...(values?.spans(text) ?? []),
    ...viewSpans(text, values, separated),
  ];
  const out = Buffer.from(data);
  let count = 0;
  for (const span of spans) {
    out.fill(MASK, span.start, span.end);
    count++;
  }
  let masked = out.toString('latin1');
  for (const pattern of [...TOKEN_RULES.map((r) => r.pattern), PEM]) {
    pattern.lastIndex = 0;
    masked = masked.replace(pattern, (match) => {
      count++;
      return MASK.repeat(match.length);
    });
  }
  return { data: Buffer.from(masked, 'latin1'), count };
}

/** What `text` holds percent- or JSON-escaped character by character (redact-views.ts), where it is in `text`. */
function viewSpans(text: string, values: FormMatcher | null, separated: readonly string[]): Span[] {
  return decodedViews(text).flatMap((view) =>
    lineSpans(text, view, [...(values?.spans(view.text) ?? []), ...separatedSpans(view.text, separated)]),
  );
}
