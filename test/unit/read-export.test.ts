// Opening a share's export as a stranger's file (core/join/read-export.ts): what an attacker could put in a
// tar.gz — names that climb out or are absolute, links, too many entries, too many bytes, a forged manifest —
// is refused before anything is written, and named in one line.
import { existsSync, mkdirSync, readdirSync, symlinkSync, linkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { create } from 'tar';
import { describe, expect, it } from 'vitest';
import { openExport } from '../../src/core/join/read-export.js';
import { tempDir } from '../helpers/temp.js';

/** A tar.gz of `names` under `cwd` (preservePaths keeps `..` and absolute names as an attacker would write them). */
function pack(cwd: string, names: string[], preservePaths = false): string {
  const file = path.join(tempDir('elenchos-export-'), 'share.tar.gz');
  create({ gzip: true, file, cwd, sync: true, preservePaths, portable: true }, names);
  return file;
}

function staged(files: Record<string, string>): string {
  const dir = tempDir('elenchos-stage-');
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

async function open(file: string, limits?: { entries: number; bytes: number }) {
  const dest = path.join(tempDir('elenchos-dest-'), 'out');
  const result = await openExport(file, dest, limits);
  return { result, dest };
}

describe('openExport', () => {
  it('refuses an entry whose name climbs out, and writes nothing (not even beside the destination)', async () => {
    const root = tempDir('elenchos-climb-');
    const inner = path.join(root, 'a', 'b');
    mkdirSync(inner, { recursive: true });
    writeFileSync(path.join(root, 'a', 'evil.txt'), 'pwned\n');
    const file = pack(inner, ['../evil.txt'], true);
    const { result, dest } = await open(file);
    expect(result).toEqual({ ok: false, problem: 'holds an entry whose name climbs out ("../evil.txt")' });
    expect(existsSync(dest)).toBe(false);
    expect(existsSync(path.join(path.dirname(dest), 'evil.txt'))).toBe(false);
  });

  it('refuses an absolute name', async () => {
    const dir = staged({ 'x.txt': 'x\n' });
    const { result } = await open(pack('/', [path.join(dir, 'x.txt')], true));
    expect(result.ok).toBe(false);
    expect((result as { problem: string }).problem).toMatch(/^holds an entry with an absolute or unusual name \("\/tmp\//);
  });

  it('refuses a symbolic link and a hard link: an export holds only files and folders', async () => {
    const dir = staged({ 'runs/r/run.json': '{}' });
    symlinkSync('/etc/passwd', path.join(dir, 'runs/r/passwd'));
    const sym = await open(pack(dir, ['runs']));
    expect((sym.result as { problem: string }).problem).toMatch(/^holds a SymbolicLink entry \("runs\/r\/passwd"\)/);
    const hard = staged({ 'runs/r/a.txt': 'a\n' });
    linkSync(path.join(hard, 'runs/r/a.txt'), path.join(hard, 'runs/r/b.txt'));
    const link = await open(pack(hard, ['runs']));
    expect((link.result as { problem: string }).problem).toMatch(/^holds a Link entry/);
  });

  it('refuses more entries or more bytes than the limits, and a gzip that inflates past them', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 20; i++) files[`runs/r/f${i}.txt`] = 'x';
    const many = await open(pack(staged(files), ['runs']), { entries: 10, bytes: 1e9 });
    expect(many.result).toEqual({ ok: false, problem: 'holds more than 10 entries' });
    const big = await open(pack(staged({ 'runs/r/big.bin': 'y'.repeat(100_000) }), ['runs']), { entries: 100, bytes: 50_000 });
    expect(big.result).toEqual({ ok: false, problem: 'declares more than 50000 bytes' });
    // Zeros that compress to almost nothing: refused by what they inflate to, before the end of the stream.
    const bomb = path.join(tempDir('elenchos-bomb-'), 'bomb.tar.gz');
    writeFileSync(bomb, gzipSync(Buffer.alloc(20 * 1024 * 1024)));
    const inflated = await open(bomb, { entries: 1, bytes: 1024 });
    expect((inflated.result as { problem: string }).problem).toMatch(/unpacks to more than 1024 bytes/);
  });

  it('refuses what is not a share: other top-level entries, no manifest, a manifest that is not one, a newer format', async () => {
    const other = await open(pack(staged({ 'etc/x': 'x' }), ['etc']));
    expect(other.result).toEqual({ ok: false, problem: 'holds "etc/", outside elenchos-share.json and runs/' });
    const none = await open(pack(staged({ 'runs/r/run.json': '{}' }), ['runs']));
    expect((none.result as { problem: string }).problem).toMatch(/^has no readable elenchos-share\.json/);
    const forged = await open(
      pack(
        staged({ 'elenchos-share.json': JSON.stringify({ format: 'elenchos-share', formatVersion: 1, share: { index: 3, total: 2 } }) }),
        ['elenchos-share.json'],
      ),
    );
    expect((forged.result as { problem: string }).problem).toMatch(/^has an invalid elenchos-share\.json: /);
    const newer = await open(pack(staged({ 'elenchos-share.json': JSON.stringify({ formatVersion: 9 }) }), ['elenchos-share.json']));
    expect((newer.result as { problem: string }).problem).toMatch(/share format 9, newer than this elenchos reads/);
    const junk = path.join(tempDir('elenchos-junk-'), 'junk.tar.gz');
    writeFileSync(junk, 'not a tar');
    expect(((await open(junk)).result as { problem: string }).problem).toMatch(/^is not a readable tar\.gz/);
  });

  it('unpacks a well-formed export into its own folder', async () => {
    const dir = staged({ 'elenchos-share.json': '{}', 'runs/r/run.json': '{}' });
    const { result, dest } = await open(pack(dir, ['elenchos-share.json', 'runs']));
    // The manifest is invalid ({}), but only after the files were laid out where they belong.
    expect(result.ok).toBe(false);
    expect(readdirSync(dest).sort()).toEqual(['elenchos-share.json', 'runs']);
  });
});
