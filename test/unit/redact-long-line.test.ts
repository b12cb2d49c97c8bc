// Lines over 1 MB: a file is read 256 KB at a time and a line longer than 1 MB is written in
// pieces, so one huge line cannot exhaust memory. A piece must never end inside a secret: the file comes out
// as the whole line would, whatever sits where it is cut, and memory stays bounded.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/evidence/redact.js';
import { tempDir } from '../helpers/temp.js';

const KB = 1024;
const MB = 1024 * KB;
/** The size of one read (redact.ts). */
const READ = 256 * KB;
/** What a cut keeps back (redact.ts HOLD); the first cut of a line is `HOLD` before the end of its fifth read. */
const HOLD = 64 * KB;
/** Where the n-th cut of one long line is aimed: 64 KB back from the end of read 5, 9, 13, … */
const cutAt = (n: number) => (5 + 4 * n) * READ - HOLD;
/** Where the n-th cut of the line sees its text end (what follows is not read yet). */
const readEnd = (n: number) => (5 + 4 * n) * READ;

const filler = (n: number) => 'abcdefghij'.repeat(Math.ceil(n / 10)).slice(0, n);
// Built at run time so no scanner mistakes this file for a leak.
const github = `ghp_${'aB3d'.repeat(9)}`;

/**
 * One line holding each piece of text so that its character `split` is at `at`; spaces around each piece,
 * filler between them, a newline at the end.
 */
function line(parts: { at: number; text: string; split: number }[], length: number): string {
  let body = '';
  for (const { at, text, split } of parts) {
    const start = at - split;
    expect(start).toBeGreaterThan(body.length + 1);
    body += `${filler(start - body.length - 1)} ${text}`;
  }
  return `${body} ${filler(length - body.length - 1)}\n`;
}

async function redactFile(body: string, values: string[]): Promise<{ result: unknown; out: string }> {
  const file = path.join(tempDir(), 'long.ndjson');
  writeFileSync(file, body, 'latin1');
  const result = await new Redactor({ values }).redactFile(file);
  return { result, out: readFileSync(file, 'latin1') };
}

describe('a line over 1 MB, cut in pieces', () => {
  it('hides what sits across a cut as the whole line would: a secret with spaces, a bearer token, a quoted access key, a key block', async () => {
    const values = ['two words secret', 'mid-value'];
    const bearer = 'Authorization: Bearer abcdefghijklmnopqrstuvwx';
    const accessKey = 'kane-cli --access-key "quoted s3cr3t value" --x';
    const key = '-----BEGIN RSA PRIVATE KEY----- MIIBOgIBAAJB AKj34GkxFhD9 -----END RSA PRIVATE KEY-----';
    const parts = [
      // A cut aimed inside a secret, where a separator (a space) used to be the cut.
      { at: cutAt(0), text: 'two words secret', split: 4 },
      // A token across the end of what the first cut sees: all of it is kept back, whatever the secrets' length.
      { at: readEnd(0), text: bearer, split: 30 },
      // A cut aimed inside a key block's first marker (the block's body would be left in the file).
      { at: cutAt(1), text: key, split: 20 },
      { at: readEnd(1), text: accessKey, split: 'kane-cli --access-key "quoted '.length },
      // A value that starts exactly where a cut is aimed is found whole after it.
      { at: cutAt(2), text: 'mid-value', split: 0 },
    ];
    const body = line(parts, cutAt(2) + 2 * KB);
    const { result, out } = await redactFile(body, values);
    expect(out).toBe(new Redactor({ values }).redactText(body));
    expect(result).toEqual({ changed: true, replacements: 5 });
    for (const leak of ['words', 'secret', 'abcdefghijklmnopqrstuvwx', 's3cr3t', 'MIIB', 'AKj3', 'mid-value']) {
      expect(out).not.toContain(leak);
    }
  }, 120_000);

  it('moves the cut back again when the secret it moved to starts inside another', async () => {
    // The value ends inside the token; the cut aimed after the value's end, inside the token, moves to the
    // token's start, which is inside the value, so it moves again to the value's start.
    const values = ['my-s3cr3t-ghp_aB3d'];
    const text = `my-s3cr3t-${github}`;
    // Longer than what the fifth read ends at, so the line is still open there and is cut.
    const body = line([{ at: cutAt(0), text, split: text.length - 4 }], readEnd(0) + 2 * KB);
    const { out } = await redactFile(body, values);
    expect(out).toBe(new Redactor({ values }).redactText(body));
    expect(out).not.toContain('my-s3cr3t');
  }, 120_000);

  it('hides a secret spelled with separators, percent-encoded or UTF-16 across a cut, as the whole line would', async () => {
    const secret = 'Sp3lled-0ut-Secret-9x';
    const spaced = [...secret].join(' ');
    const percent = [...secret].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
    const utf16 = [...secret].join('\0');
    const parts = [
      { at: cutAt(0), text: spaced, split: 11 },
      { at: cutAt(1), text: percent, split: 20 },
      { at: cutAt(2), text: utf16, split: 9 },
    ];
    const body = line(parts, cutAt(2) + 2 * KB);
    const { out } = await redactFile(body, [secret]);
    expect(out).toBe(new Redactor({ values: [secret] }).redactText(body));
    for (const text of [spaced, percent, utf16]) expect(out).not.toContain(text.slice(0, 8));
    expect(out.split('[REDACTED]').length - 1).toBe(3);
  }, 120_000);

  it('keeps a secret longer than 64 KB whole across the end of a read', async () => {
    const long = `long-secret-${'x9'.repeat(40 * KB)}`;
    const body = line([{ at: readEnd(0), text: long, split: 10 }], readEnd(0) + long.length + 2 * KB);
    const { result, out } = await redactFile(body, [long]);
    expect(result).toEqual({ changed: true, replacements: 1 });
    expect(out).toBe(body.replace(long, '[REDACTED]'));
  }, 120_000);
});

function status(field: 'VmRSS' | 'VmHWM'): number {
  const found = readFileSync('/proc/self/status', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(found!.split(/\s+/)[1]) * KB;
}

/**
 * How far this process's resident memory rose while `work` ran: the kernel's high-water mark, reset first
 * (after a full garbage collection, so that the garbage of earlier tests is not counted).
 */
async function peakGrowth(work: () => Promise<unknown>): Promise<number> {
  v8.setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  writeFileSync('/proc/self/clear_refs', '5');
  const before = status('VmRSS');
  await work();
  return status('VmHWM') - before;
}

describe.skipIf(process.platform !== 'linux')('memory', () => {
  it('a 16 MB line raises memory by far less than holding it whole would', async () => {
    const file = path.join(tempDir(), 'huge.log');
    const secret = 's3cr3t-in-a-huge-line';
    const piece = `${filler(1000)} ${secret} `;
    writeFileSync(file, `${piece.repeat(Math.ceil((16 * MB) / piece.length))}\n`, 'latin1');
    let result: unknown;
    const growth = await peakGrowth(async () => {
      result = await new Redactor({ values: [secret] }).redactFile(file);
    });
    expect(result).toMatchObject({ changed: true });
    // Held whole (never cut), the line and its copies took 138 MB more here. Cut, 0-31 MB: pieces of 1 MB
    // and the garbage not yet collected (the young generation alone may grow to 48 MB).
    expect(growth).toBeLessThan(72 * MB);
  }, 300_000);
});
