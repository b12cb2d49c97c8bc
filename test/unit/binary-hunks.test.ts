// A secret in a binary file the agent changed or staged: git stores it deflated in diff.patch (a `literal`
// hunk of a new file, a `delta` of a changed one), where no scan of the patch's text sees it. The hunks
// are undone, masked and written back so that `git apply` still writes the (masked) file.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/evidence/redact.js';
import { redactBinaryHunks } from '../../src/git/binary-hunks.js';
import { binaryHunks, encodedLeak } from '../helpers/secret-leak.js';
import { gitSync, tempDir, tempRepo } from '../helpers/temp.js';

const secret = 'sk-ant-api03-Zq8Wm5Tx7Vn2Pb9Lc4Hd6Fg1Js0YkQw3Er5';
// Large and varied enough that git writes a change to it as a delta, not a whole new literal.
const noise = Buffer.from(Array.from({ length: 40_000 }, (_, i) => (i * 7919 + (i >> 3)) % 251));

function patchOf(root: string): string {
  const file = path.join(tempDir(), 'diff.patch');
  writeFileSync(file, gitSync(root, 'diff', '--binary', '--full-index', 'HEAD'), 'latin1');
  return file;
}

describe('redactBinaryHunks', () => {
  it('masks a secret in a delta (a changed binary file) and a literal (a staged new one); git apply writes the masked files', async () => {
    const root = tempRepo({ 'README.md': 'r\n' });
    writeFileSync(path.join(root, 'blob.bin'), noise);
    gitSync(root, 'add', 'blob.bin');
    gitSync(root, 'commit', '-qm', 'blob');
    const changed = Buffer.concat([noise.subarray(0, 20_000), Buffer.from(secret, 'utf16le'), noise.subarray(20_000)]);
    writeFileSync(path.join(root, 'blob.bin'), changed);
    writeFileSync(path.join(root, 'new-utf16.txt'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(secret, 'utf16le')]));
    gitSync(root, 'add', '-A');
    const patch = patchOf(root);
    const before = readFileSync(patch, 'latin1');
    expect(before).toMatch(/^delta \d+$/m);
    expect(before).toMatch(/^literal \d+$/m);
    expect(binaryHunks(before).some((h) => encodedLeak(h.toString('latin1'), secret) !== null)).toBe(true);

    const redactor = new Redactor({ values: [secret] });
    expect(await redactBinaryHunks(patch, root, (data) => redactor.maskBytes(data))).toBe(2);
    const after = readFileSync(patch, 'latin1');
    for (const hunk of binaryHunks(after)) expect(encodedLeak(hunk.toString('latin1'), secret)).toBeNull();
    expect(after).not.toMatch(/^delta /m); // a masked file is stored whole

    // Applied to the base: every byte as the agent left it, but the secret's.
    gitSync(root, 'stash', '-q');
    gitSync(root, 'apply', '--binary', patch);
    const blob = readFileSync(path.join(root, 'blob.bin'));
    expect(blob.length).toBe(changed.length);
    expect(blob.subarray(0, 20_000).equals(changed.subarray(0, 20_000))).toBe(true);
    expect(blob.subarray(20_000, 20_000 + 2 * secret.length).toString('latin1')).toMatch(/^\*+$/);
    expect(blob.subarray(20_000 + 2 * secret.length).equals(noise.subarray(20_000))).toBe(true);
    expect(readFileSync(path.join(root, 'new-utf16.txt')).subarray(2).toString('latin1')).toBe('*'.repeat(2 * secret.length));
  });

  it('leaves a patch whose binary hunks hold no secret byte for byte as it was', async () => {
    const root = tempRepo({ 'README.md': 'r\n' });
    writeFileSync(path.join(root, 'blob.bin'), noise);
    writeFileSync(path.join(root, 'text.txt'), 'line\r\nwith CRLF and no secret\r\n');
    gitSync(root, 'add', '-A');
    const patch = patchOf(root);
    const before = readFileSync(patch);
    expect(await redactBinaryHunks(patch, root, (data) => new Redactor({ values: [secret] }).maskBytes(data))).toBe(0);
    expect(readFileSync(patch).equals(before)).toBe(true);
  });
});
