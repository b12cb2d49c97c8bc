// Appends one JSON object per line to a file; closed explicitly so nothing is lost on exit.
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';

/** An append-only NDJSON file. */
export class NdjsonWriter {
  private readonly stream: WriteStream;
  private closed = false;
  /** The first write error (ENOSPC…); later writes reject with it instead of crashing the process. */
  private failure: Error | null = null;

  private constructor(readonly file: string) {
    this.stream = createWriteStream(file, { flags: 'a' });
    this.stream.on('error', (error) => {
      this.failure ??= error;
    });
  }

  /** Opens `file` for appending (created when missing). */
  static open(file: string): NdjsonWriter {
    return new NdjsonWriter(file);
  }

  /** Writes `event` as one line; resolves when the stream can take more (backpressure). */
  async write(event: unknown): Promise<void> {
    if (this.closed) throw new Error(`NdjsonWriter: ${this.file} is closed`);
    if (this.failure) throw this.failure;
    if (!this.stream.write(`${JSON.stringify(event)}\n`)) await once(this.stream, 'drain');
  }

  /** Flushes and closes the file. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    if (this.stream.closed) return this.failure ? Promise.reject(this.failure) : Promise.resolve();
    // 'close' comes last, after 'finish' or after a failed write's 'error'.
    return new Promise((resolve, reject) => {
      this.stream.once('close', () => (this.failure ? reject(this.failure) : resolve()));
      if (!this.stream.destroyed) this.stream.end();
    });
  }
}
