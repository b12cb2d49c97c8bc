// The setup cache's authentication: an HMAC over each entry's manifest (and its stamps) with a
// per-machine key kept outside every repository (util/secret-paths.ts: cacheKeyPath, from the caller's
// environment: every function here takes the key file, never a default), created 0600 on first use. A plain sha256 can be recomputed by whoever rewrites a cached file (the app, which is the
// agent's code); an HMAC only by whoever can read the key, which a sandbox hides.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, openSync, readFileSync, writeSync, closeSync } from 'node:fs';
import path from 'node:path';

const keys = new Map<string, Buffer>();

/**
 * The machine's cache key in `file` (cacheKeyPath of the caller's environment; read once per process,
 * created on first use); throws when it can be neither read nor created.
 */
export function machineCacheKey(file: string): Buffer {
  const known = keys.get(file);
  if (known) return known;
  const key = readOrCreate(file);
  keys.set(file, key);
  return key;
}

/**
 * Makes the machine's cache key now, before any sandbox starts and before a run gathers its secrets: made
 * during the first cache save instead, it was readable by an agent already running and unknown to
 * redaction. A key that cannot be made is reported where it is used.
 */
export function ensureMachineCacheKey(file: string): void {
  try {
    machineCacheKey(file);
  } catch {
    // the cache save says why
  }
}

function readOrCreate(file: string): Buffer {
  try {
    return parse(readFileSync(file, 'utf8'), file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const text = `${randomBytes(32).toString('hex')}\n`;
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (error) {
    // Another process created it first: its key is the machine's.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return parse(readFileSync(file, 'utf8'), file);
    throw error;
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return parse(text, file);
}

function parse(text: string, file: string): Buffer {
  const hex = text.trim();
  // A key being written by another process reads short: never sign with half a key.
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${file} is not a setup cache key (64 hex digits); delete it to make a new one`);
  return Buffer.from(hex, 'hex');
}

/** HMAC-SHA256 (hex) of `what` with the machine's cache key in `keyFile`. */
export function cacheHmac(what: string, keyFile: string): string {
  return createHmac('sha256', machineCacheKey(keyFile)).update(what).digest('hex');
}

/** Whether `hmac` is `what`'s HMAC with the machine's cache key in `keyFile` (false when the key cannot be read). */
export function cacheHmacValid(what: string, hmac: unknown, keyFile: string): boolean {
  if (typeof hmac !== 'string' || !/^[0-9a-f]{64}$/.test(hmac)) return false;
  let expected: string;
  try {
    expected = cacheHmac(what, keyFile);
  } catch {
    return false;
  }
  return timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(hmac, 'hex'));
}
