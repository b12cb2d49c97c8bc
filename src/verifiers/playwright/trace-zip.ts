// A Playwright trace.zip read entry by entry with yauzl: the central directory is listed once (its size
// capped), and only the entries asked for are inflated, each capped. The file is never read whole, so a
// trace of any size costs what its few read entries cost; a damaged entry costs only itself.
import { open, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { fromRandomAccessReaderPromise, RandomAccessReader, type Entry, type ZipFile } from 'yauzl';

// The central directory of a trace: its entries are the test's calls, snapshots and resources.
const MAX_DIRECTORY_BYTES = 64 * 1024 * 1024;
// Each central directory record: 46 fixed bytes, then its name, extra field and comment.
const RECORD_BYTES = 46;

export interface TraceZip {
  /** Entry names in the order of the central directory. */
  names: string[];
  /** An entry's bytes, or null when it is absent, declares (or turns out) larger than `max`, or cannot be read. */
  read(name: string, max: number): Promise<Buffer | null>;
  /** Closes the file; awaited, so no descriptor outlives the caller's `finally`. */
  close(): Promise<void>;
}

/**
 * Opens `file` and lists its entries; null when it is no zip or its directory is larger than 64 MB.
 * A directory damaged part-way keeps the entries listed before the damage, as the old reader did.
 */
export async function openTraceZip(file: string): Promise<TraceZip | null> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    // Not yauzl.open: its descriptor is closed asynchronously once the last stream lets go of it;
    // a handle of our own is closed here, after every pending read, on every path.
    const zip = await fromRandomAccessReaderPromise(new HandleReader(handle), size, {
      autoClose: false,
      // Names are read as UTF-8 here, and yauzl's name checks (absolute, `..`) would end the listing
      // at one odd name: a name only selects an entry, nothing is written by it.
      decodeStrings: false,
      // A stored entry whose two sizes disagree would end the listing too; reads check sizes instead.
      validateEntrySizes: false,
    });
    const entries = await listEntries(zip);
    if (!entries) return closeWith(handle, null);
    return {
      names: [...entries.keys()],
      read: async (name, max) => {
        const entry = entries.get(name);
        return entry ? readEntry(zip, entry, max) : null;
      },
      close: () => handle.close(),
    };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Name → entry (the first of a name wins); null when the directory is over its cap. */
async function listEntries(zip: ZipFile): Promise<Map<string, Entry> | null> {
  const entries = new Map<string, Entry>();
  let directoryBytes = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      directoryBytes += RECORD_BYTES + entry.fileNameLength + entry.extraFieldLength + entry.fileCommentLength;
      if (directoryBytes > MAX_DIRECTORY_BYTES) return null;
      const name = entry.fileNameRaw.toString('utf8');
      if (!entries.has(name)) entries.set(name, entry);
    }
  } catch {
    // a damaged record ends the listing; what came before it stands
  }
  return entries;
}

async function readEntry(zip: ZipFile, entry: Entry, max: number): Promise<Buffer | null> {
  // Declared sizes first: an entry that says it is larger is never opened. A deflated entry is rarely
  // more than twice the bytes it inflates to; one that is, is not what Playwright writes.
  if (entry.uncompressedSize > max || entry.compressedSize > max * 2 + 1024) return null;
  let stream: Readable;
  try {
    stream = await zip.openReadStreamPromise(entry);
  } catch {
    return null; // a bad local header, an unknown method, encryption
  }
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      length += chunk.length;
      // The declared size is the entry's claim, not a fact: one that inflates past it (a zip bomb)
      // is cut off here, having cost at most `max` bytes. Leaving the loop destroys the stream.
      if (length > entry.uncompressedSize) return null;
      chunks.push(chunk);
    }
  } catch {
    return null; // damaged data: this entry only
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks);
}

async function closeWith<T>(handle: FileHandle, value: T): Promise<T> {
  await handle.close();
  return value;
}

/** yauzl's random access over a FileHandle we own: reads at positions, never closes the handle. */
class HandleReader extends RandomAccessReader {
  constructor(private readonly handle: FileHandle) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    // Not handle.createReadStream: ending that stream closes the handle, even with autoClose false.
    const handle = this.handle;
    let position = start;
    return new Readable({
      read(size) {
        const length = Math.min(size, end - position);
        if (length <= 0) return void this.push(null);
        handle.read(Buffer.alloc(length), 0, length, position).then(
          ({ bytesRead, buffer }) => {
            position += bytesRead;
            this.push(bytesRead === 0 ? null : buffer.subarray(0, bytesRead));
          },
          (error: Error) => this.destroy(error),
        );
      },
    });
  }

  override read(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null) => void): void {
    this.handle.read(buffer, offset, length, position).then(
      ({ bytesRead }) => callback(bytesRead < length ? new Error('unexpected end of the zip file') : null),
      (error: Error) => callback(error),
    );
  }

  override close(callback: (err: Error | null) => void): void {
    callback(null); // the handle is closed by openTraceZip's caller, after the last read
  }
}
