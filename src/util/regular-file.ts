// Reads a user's input file safely: only a regular file, never more than a size limit.
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { FileNotFoundError, InputError } from '../errors.js';

/** Task contracts, configs and variables files are small; anything bigger is a mistake or an attack. */
export const INPUT_FILE_LIMIT = 1024 * 1024;
/** Test files (`_test.md`, specs) and the files they import. */
export const TEST_FILE_LIMIT = 4 * 1024 * 1024;

export interface ReadRegularFileOptions {
  /** Name shown in errors (usually repo-relative). */
  label?: string;
  maxBytes?: number;
}

/**
 * Reads `file` if it is a regular file of at most `maxBytes`. O_NONBLOCK makes opening a FIFO return at
 * once instead of waiting for a writer; fstat after open (not stat before) judges the file actually opened,
 * so a symlink to /dev/zero or a FIFO swapped in between is refused, never read.
 */
export async function readRegularFile(file: string, options: ReadRegularFileOptions = {}): Promise<Buffer> {
  const label = options.label ?? file;
  const maxBytes = options.maxBytes ?? INPUT_FILE_LIMIT;
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new FileNotFoundError(`${label}: cannot read (${describeOpenError(error)}); check the path`, { cause: error });
  }
  try {
    const info = await handle.stat();
    if (!info.isFile())
      throw new FileNotFoundError(`${label}: cannot read (${describeKind(info)}, not a regular file); point it at a regular file`);
    if (info.size > maxBytes) throw tooBig(label, info.size, maxBytes);
    // The size can grow between fstat and read: read up to one byte past the limit to notice. The buffer
    // starts at the size fstat saw (a 64 MiB limit must not cost a 64 MiB allocation per small file) and
    // doubles only for a file that grew.
    let buffer: Buffer = Buffer.allocUnsafe(Math.min(info.size, maxBytes) + 1);
    let length = 0;
    for (let read = -1; read !== 0 && length <= maxBytes; length += read) {
      if (length === buffer.length) buffer = grown(buffer, Math.min(buffer.length * 2, maxBytes + 1));
      ({ bytesRead: read } = await handle.read(buffer, length, buffer.length - length, length));
    }
    if (length > maxBytes) throw tooBig(label, length, maxBytes);
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

/**
 * The first `maxBytes` of `file` and its whole size, or null when it is not a regular file (a FIFO, a
 * device, a folder) or cannot be opened: for showing the start of a file that may be of any size.
 */
export async function readFileHead(file: string, maxBytes: number): Promise<{ bytes: Buffer; size: number } | null> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => null);
  if (!handle) return null;
  try {
    const info = await handle.stat();
    if (!info.isFile()) return null;
    const buffer = Buffer.allocUnsafe(Math.min(info.size, maxBytes));
    let length = 0;
    for (let read = -1; read !== 0 && length < buffer.length; length += read) {
      ({ bytesRead: read } = await handle.read(buffer, length, buffer.length - length, length));
    }
    return { bytes: buffer.subarray(0, length), size: Math.max(info.size, length) };
  } finally {
    await handle.close();
  }
}

function grown(buffer: Buffer, size: number): Buffer {
  const bigger = Buffer.allocUnsafe(size);
  buffer.copy(bigger);
  return bigger;
}

function tooBig(label: string, size: number, maxBytes: number): InputError {
  return new InputError(`${label}: too large (${formatBytes(size)}, the limit is ${formatBytes(maxBytes)}); is this the right file?`);
}

/** `512 B`, `1.5 KiB`, `4 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number(value.toFixed(1))} ${units[unit]}`;
}

function describeOpenError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'is a directory';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'ELOOP') return 'too many symbolic links';
  return String(code ?? error);
}

function describeKind(info: {
  isDirectory(): boolean;
  isFIFO(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSocket(): boolean;
}): string {
  if (info.isDirectory()) return 'is a directory';
  if (info.isFIFO()) return 'is a FIFO';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'is a device';
  if (info.isSocket()) return 'is a socket';
  return 'is not a file';
}

/** A test file (or a file it imports, or a verifier's report) as UTF-8 text, under a size limit. */
export async function readTestFileText(file: string, label = file, maxBytes = TEST_FILE_LIMIT): Promise<string> {
  return (await readRegularFile(file, { label, maxBytes })).toString('utf8');
}
