// Without the sandbox the store itself is writable: what changed in it since a moment is checked against its id.
import { readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { auditObjectsSince } from '../../src/git/object-audit.js';
import { gitSync, tempRepo } from '../helpers/temp.js';

describe('auditObjectsSince', () => {
  it('passes what git itself wrote since then, loose and packed (gc)', async () => {
    const root = tempRepo({ 'page.html': '<h1>Tasks</h1>\n' });
    const since = Date.now();
    writeFileSync(path.join(root, 'new.txt'), 'new\n');
    gitSync(root, 'add', 'new.txt');
    gitSync(root, 'commit', '-qm', 'new');
    expect((await auditObjectsSince(root, since)).forged).toEqual([]);
    gitSync(root, 'gc', '-q');
    const audit = await auditObjectsSince(root, since);
    expect(audit).toMatchObject({ forged: [] });
    expect(audit.checked).toBeGreaterThan(0);
    expect(gitSync(root, 'cat-file', 'blob', 'HEAD:new.txt')).toBe('new\n');
  });

  it('finds a loose object renamed over an existing one and removes it; an older object is not read at all', async () => {
    const root = tempRepo({ 'page.html': '<h1>Tasks</h1>\n', 'other.txt': 'other\n' });
    const id = gitSync(root, 'rev-parse', 'HEAD:page.html').trim();
    const since = Date.now() + 5000; // every object of the repository is older than that (the slack is 2 s)
    const forged = deflateSync(Buffer.from('blob 6\0forged'));
    const file = path.join(root, '.git/objects', id.slice(0, 2), id.slice(2));
    writeFileSync(`${file}.tmp`, forged);
    renameSync(`${file}.tmp`, file);
    const late = await auditObjectsSince(root, since);
    expect(late.checked).toBe(0);
    const audit = await auditObjectsSince(root, Date.now());
    expect(audit.forged).toEqual([id]);
    expect(() => gitSync(root, 'cat-file', 'blob', id)).toThrow();
    expect(gitSync(root, 'cat-file', 'blob', 'HEAD:other.txt')).toBe('other\n');
  });

  it('finds a pack index that maps an id to another object of its pack, and drops that index', async () => {
    const root = tempRepo({ 'page.html': '<h1>Tasks</h1>\n', 'done.html': '<h1>Tasks</h1><li>Buy milk</li>\n' });
    gitSync(root, 'gc', '-q');
    const since = Date.now();
    const packs = path.join(root, '.git/objects/pack');
    const idx = path.join(
      packs,
      readdirSync(packs).find((name) => name.endsWith('.idx'))!,
    );
    // Swap the two blobs' offsets: the page's id now reads the finished page.
    const bytes = Buffer.from(readFileSync(idx));
    const count = bytes.readUInt32BE(8 + 255 * 4);
    const ids = Array.from({ length: count }, (_, i) => bytes.subarray(1032 + i * 20, 1032 + (i + 1) * 20).toString('hex'));
    const page = ids.indexOf(gitSync(root, 'rev-parse', 'HEAD:page.html').trim());
    const done = ids.indexOf(gitSync(root, 'rev-parse', 'HEAD:done.html').trim());
    const offsets = 1032 + count * 24;
    const a = bytes.readUInt32BE(offsets + page * 4);
    bytes.writeUInt32BE(bytes.readUInt32BE(offsets + done * 4), offsets + page * 4);
    bytes.writeUInt32BE(a, offsets + done * 4);
    writeFileSync(`${idx}.tmp`, bytes);
    renameSync(`${idx}.tmp`, idx);
    expect(gitSync(root, 'cat-file', 'blob', 'HEAD:page.html')).toContain('Buy milk'); // what git reads before the audit
    const audit = await auditObjectsSince(root, since);
    expect(audit.forged).toEqual([`pack/${path.basename(idx)}`]);
    expect(() => gitSync(root, 'cat-file', 'blob', 'HEAD:page.html')).toThrow();
  });
});
