// Redaction in detail: which forms of a configured secret are found, private-key blocks in every shape,
// the command-line and header formats, long lines cut without splitting a secret, binary files, trees,
// and that a rewrite leaves nothing open behind it.
import { readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { maskBinaryFile } from '../../src/evidence/redact-binary.js';
import { FormMatcher } from '../../src/evidence/redact-matcher.js';
import { LineRedactor, REDACTED, TOKEN_RULES } from '../../src/evidence/redact-rules.js';
import { listFiles, Redactor } from '../../src/evidence/redact.js';
import { tempDir, writeFiles } from '../helpers/temp.js';

const text = (input: string, values: string[] = []) => new Redactor({ values }).redactText(input);
const openFds = () => readdirSync('/proc/self/fd').length;
// Built at run time so no scanner mistakes this file for a leak.
const github = `ghp_${'aB3d'.repeat(9)}`;

describe('configured secret values', () => {
  it('takes values of four characters and more (spaces around them do not count)', () => {
    expect(text('x abcd y', ['abcd'])).toBe(`x ${REDACTED} y`);
    expect(text('x abc y', ['abc'])).toBe('x abc y');
    expect(text('x  ab  y', ['  ab  '])).toBe('x  ab  y');
    expect(new Redactor({}).redactText('nothing to hide')).toBe('nothing to hide');
  });

  it('prefers the longest value where two overlap', () => {
    expect(text('id secret-extended end', ['secret', 'secret-extended'])).toBe(`id ${REDACTED} end`);
    expect(text('id secret-extended end', ['secret-extended', 'secret'])).toBe(`id ${REDACTED} end`);
  });

  it('also finds each line of a multi-line value on its own, when the line is 8 characters or more', () => {
    const value = 'line-one-secret\r\nline-two-secret\n12345678\nshort12';
    expect(text('a line-two-secret b', [value])).toBe(`a ${REDACTED} b`);
    expect(text('a line-one-secret b', [value])).toBe(`a ${REDACTED} b`);
    expect(text('a 12345678 b', [value])).toBe(`a ${REDACTED} b`);
    expect(text('a short12 b', [value])).toBe('a short12 b');
    // A one-line value is never split: its words alone are not secrets.
    expect(text('a partone b', ['partone parttwo'])).toBe('a partone b');
  });

  it('FormMatcher: every form found, overlapping ones joined, touching ones apart, empty forms left out', () => {
    expect(new FormMatcher([]).empty).toBe(true);
    expect(new FormMatcher(['', '']).spans('abc')).toEqual([]);
    const hide = (forms: string[], text: string) => {
      let out = text;
      for (const s of new FormMatcher(forms).spans(text).reverse()) out = `${out.slice(0, s.start)}#${out.slice(s.end)}`;
      return out;
    };
    expect(hide(['ab', '', 'abcd', 'a.c'], 'x abcd ab a.c abc')).toBe('x # # # #c'); // `a.c` is literal: `abc` is only `ab` + c
    expect(hide(['abcd', 'cdef'], 'xabcdefx')).toBe('x#x'); // overlapping: one stretch
    expect(hide(['abcd', 'bc'], 'abcd abc')).toBe('# a#'); // a form inside a longer one, and alone
    expect(hide(['ab'], 'abab')).toBe('##'); // side by side: two
    expect(hide(['aaab', 'ab'], 'aaaab')).toBe('a#'); // the failure links find the longer one after a false start
    // Longer than the dense rows near the root: deep states walk their failure links.
    const long = 'k3y-'.repeat(30);
    expect(hide([long, `${long.slice(0, 50)}ZZ`], `..${long.slice(0, 50)}${long}..`)).toBe(`..${long.slice(0, 50)}#..`);
  });
});

describe('token formats', () => {
  it('each rule says which kind of token it removed', () => {
    expect(TOKEN_RULES.map((r) => r.kind)).toEqual([
      'github-token',
      'aws-access-key',
      'slack-token',
      'anthropic-key',
      'openai-key',
      'jwt',
      'bearer-token',
      'access-key',
      'access-key',
    ]);
    for (const rule of TOKEN_RULES) expect(rule.replace).toContain(rule.kind === 'access-key' ? REDACTED : `[REDACTED:${rule.kind}]`);
  });

  it('bearer and --access-key values after any run of spaces, quoted either way, and in JSON argv with spaces around the comma', () => {
    expect(text('Authorization: Bearer   abcdefghijklmnop')).toBe('Authorization: Bearer   [REDACTED:bearer-token]');
    expect(text('kane-cli --access-key    s3cr3tv4lue x')).toBe(`kane-cli --access-key    ${REDACTED} x`);
    expect(text("kane-cli --access-key 'two words' x")).toBe(`kane-cli --access-key ${REDACTED} x`);
    expect(text('["--access-key" , "s3cr3tv4lue"]')).toBe(`["--access-key" , "${REDACTED}"]`);
  });
});

describe('private keys', () => {
  const block = (type: string, body: string[]) => [`-----BEGIN ${type}PRIVATE KEY-----`, ...body, `-----END ${type}PRIVATE KEY-----`];

  it('removes a block whatever its type, its headers or its indentation, and nothing after it', () => {
    for (const type of ['', 'RSA ', 'EC ', 'OPENSSH ']) {
      expect(text(['before', ...block(type, ['MIIBOgIBAAJB', 'AKj34GkxFhD9=']), 'after'].join('\n'))).toBe(
        'before\n[REDACTED:private-key]\nafter',
      );
    }
    const encrypted = block('RSA ', [
      'Proc-Type: 4,ENCRYPTED',
      'DEK-Info: AES-128-CBC,3F17F5316E2BAC89',
      '',
      '  MIIBOgIBAAJB  ',
      '\tAKj34Gkx',
    ]);
    expect(text(['k:', ...encrypted, 'next'].join('\n'))).toBe('k:\n[REDACTED:private-key]\nnext');
  });

  it('keeps what follows the end marker on its line, and drops a line that only has spaces after it', () => {
    expect(text(['-----BEGIN RSA PRIVATE KEY-----', 'MIIB', '-----END RSA PRIVATE KEY-----", "x": 1'].join('\n'))).toBe(
      '[REDACTED:private-key]\n", "x": 1',
    );
    expect(text(['-----BEGIN PRIVATE KEY-----', 'MIIB', '-----END PRIVATE KEY-----   ', 'tail'].join('\n'))).toBe(
      '[REDACTED:private-key]\ntail',
    );
  });

  it('removes a block on one line (spaces in the body) and keeps the rest of that line', () => {
    expect(text('{"k": "-----BEGIN PRIVATE KEY----- MIIB AKj3 -----END PRIVATE KEY-----", "next": 1}\nmore')).toBe(
      '{"k": "[REDACTED:private-key]", "next": 1}\nmore',
    );
    expect(text('a -----BEGIN EC PRIVATE KEY-----MIIB-----END EC PRIVATE KEY----- b')).toBe('a [REDACTED:private-key] b');
  });

  it('a first line that looks like base64 is not inside a key', () => {
    expect(text('ok\nAKj34Gkx\nfine')).toBe('ok\nAKj34Gkx\nfine');
    expect(new LineRedactor(null).line('QUJD')).toBe('QUJD');
  });

  it('counts a removed block once', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'agent.log');
    writeFileSync(file, ['start', ...block('RSA ', ['MIIB', 'AKj3']), 'end\n'].join('\n'));
    expect(await new Redactor().redactFile(file)).toEqual({ changed: true, replacements: 1 });
    expect(readFileSync(file, 'utf8')).toBe('start\n[REDACTED:private-key]\nend\n');
  });
});

describe('files', () => {
  it('an untouched text file says so and is left as it was', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'a.txt': 'nothing\n' });
    expect(await new Redactor({ values: ['s3cr3t-value'] }).redactFile(path.join(dir, 'a.txt'))).toEqual({
      changed: false,
      replacements: 0,
    });
    expect(readdirSync(dir)).toEqual(['a.txt']);
  });

  it('a last line without a newline is read whole, even a secret with spaces in it', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'out.txt');
    writeFileSync(file, 'first\ntoken: two words secret');
    expect(await new Redactor({ values: ['two words secret'] }).redactFile(file)).toEqual({ changed: true, replacements: 1 });
    expect(readFileSync(file, 'utf8')).toBe(`first\ntoken: ${REDACTED}`);
  });

  it('a line over 1 MB is cut after a separator, so a secret across a read boundary is still found whole', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'long.json');
    const secret = 's3cr3t-across-the-boundary';
    // Reads are 256 KB; after the fifth the pending line is over 1 MB and is cut. The secret straddles that read's end.
    const boundary = 5 * 256 * 1024;
    const at = boundary - 10;
    const filler = (n: number) => 'abcdefghij'.repeat(Math.ceil(n / 10)).slice(0, n);
    const body = `${filler(at - 1000)} ${filler(999)}${secret}${filler(200_000)}\n`;
    writeFileSync(file, body);
    expect(await new Redactor({ values: [secret] }).redactFile(file)).toEqual({ changed: true, replacements: 1 });
    expect(readFileSync(file, 'utf8')).toBe(body.replace(secret, REDACTED));
  });

  it('a binary file with a text-like name inside it (app.log.gz) is masked byte for byte', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'app.log.gz');
    const bytes = Buffer.concat([Buffer.from([0x1f, 0x8b, 0]), Buffer.from(' s3cr3t-value ')]);
    writeFileSync(file, bytes);
    expect(await new Redactor({ values: ['s3cr3t-value'] }).redactFile(file)).toEqual({ changed: true, replacements: 1, binary: true });
    expect(readFileSync(file)).toEqual(Buffer.concat([Buffer.from([0x1f, 0x8b, 0]), Buffer.from(` ${'*'.repeat(12)} `)]));
  });

  it('masks private key blocks of every type in binary files, keeping the length', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'video.webm');
    const keys = [
      '-----BEGIN RSA PRIVATE KEY-----\nMIIB AKj3\n-----END RSA PRIVATE KEY-----',
      '-----BEGIN PRIVATE KEY-----\nMIIBOgIBAAJB\n-----END PRIVATE KEY-----',
    ];
    const bytes = Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from(`${keys[0]} | ${keys[1]} | ${github}`)]);
    writeFileSync(file, bytes);
    expect(await new Redactor().redactFile(file)).toEqual({ changed: true, replacements: 3, binary: true });
    const masked = `${'*'.repeat(keys[0]!.length)} | ${'*'.repeat(keys[1]!.length)} | ${'*'.repeat(github.length)}`;
    expect(readFileSync(file)).toEqual(Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from(masked)]));
  });

  // /proc lets anyone read these files but no one (root included) create a file beside them: the
  // temporary copy cannot be written, as on a full or read-only disk.
  it.each([
    ['a text file', '/proc/self/status'],
    ['a binary file', '/proc/self/cmdline'],
  ])('rejects when %s cannot be rewritten, instead of crashing or hanging', async (_kind, file) => {
    // The error that stopped it, not a later one from cleaning up or finishing a copy that was never made.
    await expect(new Redactor({ values: ['s3cr3t-value'] }).redactFile(file)).rejects.toMatchObject({
      code: 'ENOENT',
      syscall: 'open',
      path: expect.stringMatching(/\.redact\.tmp$/),
    });
  });

  it('maskBinaryFile fails on a file it cannot read, and leaves no file open', async () => {
    const dir = tempDir();
    const before = openFds();
    await expect(maskBinaryFile(path.join(dir, 'missing.bin'), path.join(dir, 'out.bin'), null)).rejects.toThrow(/ENOENT/);
    expect(openFds()).toBe(before);
  });

  it('leaves no file open, whether it rewrote the file or not', async () => {
    const dir = tempDir();
    const files: Record<string, string> = {};
    for (let i = 0; i < 20; i++) files[`f${i}.log`] = i % 2 === 0 ? `k=s3cr3t-value ${i}\n` : `clean ${i}\n`;
    writeFiles(dir, files);
    writeFileSync(path.join(dir, 'bin.dat'), Buffer.from([0, 1, 2]));
    const before = openFds();
    const result = await new Redactor({ values: ['s3cr3t-value'] }).redactTree(dir);
    expect(result).toEqual({ files: 21, changed: 10, binary: 1, renamed: 0, replacements: 10 });
    expect(openFds()).toBe(before);
  });
});

describe('trees', () => {
  it('lists regular files depth first in name order, without following symlinks', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'b.txt': '', 'a/z.txt': '', 'a/c/d.txt': '', 'C.txt': '', 'a.txt': '' });
    symlinkSync(path.join(dir, 'a'), path.join(dir, 'link-to-a'));
    symlinkSync(path.join(dir, 'b.txt'), path.join(dir, 'link-to-b'));
    expect((await listFiles(dir)).map((f) => path.relative(dir, f))).toEqual(['C.txt', 'a/c/d.txt', 'a/z.txt', 'a.txt', 'b.txt']);
    // A file, or a symlink to a folder, is not a tree.
    expect(await listFiles(path.join(dir, 'b.txt'))).toEqual([]);
    expect(await listFiles(path.join(dir, 'link-to-a'))).toEqual([]);
  });

  it('orders names as JavaScript compares them, whatever order the file system lists them in', async () => {
    // UTF-8 bytes put U+FF5E before U+1F600; UTF-16 code units put the emoji's surrogate (U+D83D) first.
    const dir = tempDir();
    writeFiles(dir, { '\uff5e.txt': '', '\u{1f600}.txt': '', 'z.txt': '', 'A.txt': '' });
    expect((await listFiles(dir)).map((f) => path.basename(f))).toEqual(['A.txt', 'z.txt', '\u{1f600}.txt', '\uff5e.txt']);
  });

  it('sums replacements over the tree', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'a.log': 's3cr3t-value s3cr3t-value\n', 'b/c.log': 's3cr3t-value\n', 'd.log': 'none\n' });
    expect(await new Redactor({ values: ['s3cr3t-value'] }).redactTree(dir)).toEqual({
      files: 3,
      changed: 2,
      binary: 0,
      renamed: 0,
      replacements: 3,
    });
  });
});
