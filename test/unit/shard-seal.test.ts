// A shard output signed by its own verify (src/core/verify/shard-seal.ts): merge takes exactly the bytes
// that verify printed, signed by the key its job published, and nothing else.
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkShardSeal, encodeKey, parseShardKeys, shardSealer, signatureOf } from '../../src/core/verify/shard-seal.js';
import { InputError, ShardSetError } from '../../src/errors.js';
import { tempDir } from '../helpers/temp.js';

const output = (index: number) => Buffer.from(`${JSON.stringify({ metadata: { shard: { index, total: 2 } }, runs: [] }, null, 2)}\n`);

/** Shard `index` printed and sealed in `dir`: its output file, its signature beside it, its key line published. */
async function sealed(dir: string, index: number): Promise<{ file: string; keyLine: string }> {
  const file = path.join(dir, `elenchos-shard-${index}.json`);
  const keys = path.join(dir, `out-${index}`);
  writeFileSync(keys, '');
  writeFileSync(file, output(index));
  expect(await shardSealer(signatureOf(file), keys).seal(output(index))).toBe(true);
  return { file, keyLine: readFileSync(keys, 'utf8').trim() };
}

const keysOf = (...lines: string[]) =>
  parseShardKeys(
    JSON.stringify(Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]))),
  );

describe('shard seal', () => {
  it("takes a shard's output as its verify printed it, checked against its own job's key", async () => {
    const dir = tempDir();
    const one = await sealed(dir, 1);
    const two = await sealed(dir, 2);
    expect(one.keyLine).toMatch(/^shard-key-1=[A-Za-z0-9+/]+=*$/);
    const keys = keysOf(one.keyLine, two.keyLine);
    await checkShardSeal(one.file, dir, 1, 2, keys);
    await checkShardSeal(two.file, dir, 2, 2, keys);
  });

  it('refuses a rewritten output, another shard signature, a missing signature, and a shard without a key (exit 4)', async () => {
    const dir = tempDir();
    const one = await sealed(dir, 1);
    const two = await sealed(dir, 2);
    const keys = keysOf(one.keyLine, two.keyLine);
    writeFileSync(one.file, output(1).toString().replace('"runs": []', '"runs": [ ]'));
    await expect(checkShardSeal(one.file, dir, 1, 2, keys)).rejects.toThrow(/not what its job's verify printed and signed/);
    // Shard 2's output and signature passed off as shard 1's: shard 1's key does not open it.
    writeFileSync(one.file, readFileSync(two.file));
    writeFileSync(signatureOf(one.file), readFileSync(signatureOf(two.file)));
    await expect(checkShardSeal(one.file, dir, 1, 2, keys)).rejects.toThrow(/signed by another key/);
    // A forger's own key pair, its key not the job's.
    const forger = generateKeyPairSync('ed25519');
    await expect(checkShardSeal(two.file, dir, 2, 2, keysOf(one.keyLine, `shard-key-2=${encodeKey(forger.publicKey)}`))).rejects.toThrow(
      /signed by another key/,
    );
    writeFileSync(signatureOf(two.file), '');
    await expect(checkShardSeal(two.file, dir, 2, 2, keys)).rejects.toThrow(/signature .* is missing or unreadable/);
    await expect(checkShardSeal(two.file, dir, 2, 2, keysOf(one.keyLine))).rejects.toThrow(ShardSetError);
  });

  it('--shard-keys: a JSON object of the job outputs; other outputs are left alone, a bad key is bad input', () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    const keys = parseShardKeys(JSON.stringify({ 'shard-key-3': encodeKey(publicKey), other: 'x', 'shard-key-2': '' }));
    expect([...keys.keys()]).toEqual([3]);
    expect(() => parseShardKeys('not json')).toThrow(InputError);
    expect(() => parseShardKeys('[]')).toThrow(InputError);
    expect(() => parseShardKeys(JSON.stringify({ 'shard-key-1': 'bm90IGEga2V5' }))).toThrow(/shard-key-1 is not a public key/);
  });

  it('signs nothing when verify printed no shard output', async () => {
    const dir = tempDir();
    const keys = path.join(dir, 'out');
    writeFileSync(keys, '');
    expect(await shardSealer(path.join(dir, 'sig'), keys).seal(Buffer.from(''))).toBe(false);
    expect(readFileSync(keys, 'utf8')).toBe('');
  });
});
