// The one JSON reader: every way a hostile or broken file was let through or hung, now refused in one line.
import { execFileSync } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileNotFoundError, InputError, JsonSyntaxError } from '../../src/errors.js';
import { parseJsonText, readJsonFile } from '../../src/util/json-file.js';
import { scanJson } from '../../src/util/json-scan.js';
import { INPUT_FILE_LIMIT, readRegularFile } from '../../src/util/regular-file.js';
import { tempDir } from '../helpers/temp.js';

const refusal = (fn: () => unknown): Error => {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a refusal');
};

describe('parseJsonText', () => {
  it('accepts a UTF-8 BOM', () => {
    expect(parseJsonText('\uFEFF{"a": 1}', 'f.json')).toEqual({ a: 1 });
  });

  it('refuses duplicate keys, naming the key and both lines (last-one-wins would hide the first)', () => {
    const text = '{\n  "testFile": "../../etc/passwd",\n  "testFile": "tests/x_test.md"\n}';
    const error = refusal(() => parseJsonText(text, 't.json'));
    expect(error).toBeInstanceOf(JsonSyntaxError);
    expect(error.message).toBe(
      't.json:3:3: invalid JSON: duplicate key "testFile" (also at line 2); JSON readers disagree on which one wins, keep one',
    );
  });

  it('sees a duplicate spelled with an escape, and allows the same key in sibling objects', () => {
    expect(() => parseJsonText('{"id": 1, "\\u0069d": 2}', 'f.json')).toThrow(/duplicate key "id"/);
    expect(parseJsonText('[{"id": 1}, {"id": 2}, {"a": {"id": 3}}]', 'f.json')).toHaveLength(3);
  });

  it('refuses nesting 10,000 deep without a stack overflow, quickly', () => {
    const started = Date.now();
    const error = refusal(() => parseJsonText(`{"agent": ${'['.repeat(10_000)}${']'.repeat(10_000)}}`, 'c.json'));
    expect(error).toBeInstanceOf(JsonSyntaxError);
    expect(error.message).toBe('c.json:1:74: invalid JSON: nested deeper than 64 levels');
    expect(Date.now() - started).toBeLessThan(500);
    expect(parseJsonText(`${'['.repeat(64)}${']'.repeat(64)}`, 'ok.json')).toBeDefined();
  });

  it('locates an error late in a 2 MB file in linear time (V8 gives no position for NaN)', () => {
    const filler = Array.from({ length: 40_000 }, (_, i) => `  "k${i}": "${'x'.repeat(40)}",`).join('\n');
    const text = `{\n${filler}\n  "late": NaN\n}`;
    expect(text.length).toBeGreaterThan(2_000_000);
    const started = Date.now();
    const error = refusal(() => parseJsonText(text, 'big.json'));
    expect(error.message).toBe('big.json:40002:11: invalid JSON: Unexpected token "N"');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('keeps the classic messages and positions', () => {
    expect(() => parseJsonText('{ "id": "x", }', 'f.json')).toThrow('f.json:1:14: invalid JSON: Expected double-quoted property name');
    expect(() => parseJsonText('{ "id": ', 'f.json')).toThrow('f.json:1:9: invalid JSON: Unexpected end of JSON input');
    expect(() => parseJsonText('{"a": 1} x', 'f.json')).toThrow(
      'f.json:1:10: invalid JSON: Unexpected non-whitespace character after JSON',
    );
    expect(() => parseJsonText('{"a": "\u0001"}', 'f.json')).toThrow('f.json:1:8: invalid JSON: Bad control character in string literal');
    expect(() => parseJsonText('[01]', 'f.json')).toThrow('f.json:1:3: invalid JSON: Expected "," or "]" after array element');
    expect(() => parseJsonText('{"a" 1}', 'f.json')).toThrow('f.json:1:6: invalid JSON: Expected ":" after property name');
  });

  it('agrees with JSON.parse on what is valid', () => {
    const valid = ['0', '-0.5e+3', '"\\ud83d\\ude00 \\/ \\n"', '{"a":[true,false,null,{}],"b":{"c":[]}}', ' \t\r\n[1 , 2]\n'];
    for (const text of valid) expect(scanJson(text, { maxDepth: 64 }), text).toBeNull();
    const invalid = [
      '',
      '01',
      '1.',
      '.5',
      '-',
      '+1',
      '"\\x"',
      '"\\u12g4"',
      "'a'",
      '[1,]',
      '{"a":1,}',
      'nul',
      'Infinity',
      '"abc',
      '{"a":1}}',
      '\u00a0 1',
    ];
    for (const text of invalid) {
      expect(scanJson(text, { maxDepth: 64 }), text).not.toBeNull();
      expect(() => JSON.parse(text), text).toThrow();
    }
  });
});

describe('readJsonFile / readRegularFile', () => {
  it('refuses a FIFO at once instead of waiting for a writer', async () => {
    const dir = tempDir();
    const fifo = path.join(dir, 'task.json');
    execFileSync('mkfifo', [fifo]);
    const started = Date.now();
    const error = await readJsonFile(fifo, 'tasks/task.json').catch((e: Error) => e);
    expect(error).toBeInstanceOf(FileNotFoundError);
    expect((error as Error).message).toBe('tasks/task.json: cannot read (is a FIFO, not a regular file); point it at a regular file');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('refuses a symlink to /dev/zero without reading it', async () => {
    const dir = tempDir();
    symlinkSync('/dev/zero', path.join(dir, 'elenchos.config.json'));
    await expect(readJsonFile(path.join(dir, 'elenchos.config.json'), 'elenchos.config.json')).rejects.toThrow(
      'elenchos.config.json: cannot read (is a device, not a regular file); point it at a regular file',
    );
  });

  it('refuses a file over the size limit, and reads one at the limit', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'big.json'), `"${'a'.repeat(INPUT_FILE_LIMIT - 1)}"`);
    await expect(readJsonFile(path.join(dir, 'big.json'), 'big.json')).rejects.toThrow('big.json: too large (1 MiB, the limit is 1 MiB)');
    writeFileSync(path.join(dir, 'ok.json'), `"${'a'.repeat(INPUT_FILE_LIMIT - 2)}"`);
    expect(((await readJsonFile(path.join(dir, 'ok.json'))).value as string).length).toBe(INPUT_FILE_LIMIT - 2);
    const error = await readRegularFile(path.join(dir, 'big.json'), { maxBytes: 10 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
  });

  it('allocates by the file, not by the limit: a small run record under the 64 MiB evidence limit stays small', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'run.json'), '{"state":"VERIFIED"}');
    const bytes = await readRegularFile(path.join(dir, 'run.json'), { maxBytes: 64 * 1024 * 1024 });
    expect(bytes.toString('utf8')).toBe('{"state":"VERIFIED"}');
    expect(bytes.buffer.byteLength).toBeLessThan(1024 * 1024);
  });

  it('reads a file that holds more than fstat said (it grew; /proc files say 0), up to the limit', async () => {
    const whole = await readRegularFile('/proc/self/status', { maxBytes: 1024 * 1024 });
    expect(whole.toString('utf8')).toMatch(/^Name:/);
    expect(whole.length).toBeGreaterThan(200);
    await expect(readRegularFile('/proc/self/status', { label: 'status', maxBytes: 100 })).rejects.toThrow('status: too large');
  });

  it('says what is wrong with a directory or a missing file', async () => {
    const dir = tempDir();
    await expect(readJsonFile(dir, 'tasks')).rejects.toThrow(
      'tasks: cannot read (is a directory, not a regular file); point it at a regular file',
    );
    await expect(readJsonFile(path.join(dir, 'none.json'), 'none.json')).rejects.toThrow(
      'none.json: cannot read (no such file); check the path',
    );
  });
});
