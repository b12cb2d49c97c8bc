// Reads NDJSON one line at a time: never crashes on a bad line, counts it and keeps a few samples.
import { createReadStream } from 'node:fs';

export interface NdjsonStats {
  /** Every line seen, good or bad. */
  lines: number;
  /** Lines that parsed to a JSON object. */
  events: number;
  blank: number;
  /** Non-blank lines that are not a JSON object (banners, truncated writes, arrays, numbers). */
  invalid: number;
  /** The first few invalid lines, shortened, so a person can see what the producer printed. */
  samples: string[];
}

export type NdjsonObject = Record<string, unknown>;

const OPEN_BRACE = 0x7b;
const MAX_SAMPLES = 5;
const SAMPLE_LENGTH = 200;

/** Parses lines into objects; anything else is counted and skipped. */
export class NdjsonReader {
  readonly stats: NdjsonStats = { lines: 0, events: 0, blank: 0, invalid: 0, samples: [] };

  /** The line's object, or null for a blank or non-object line (counted either way). */
  read(line: string): NdjsonObject | null {
    this.stats.lines++;
    // Fast path: producers write `{...}` with no indentation, so most lines need no trim.
    if (line.charCodeAt(0) !== OPEN_BRACE) {
      const trimmed = line.trim();
      if (trimmed === '') {
        this.stats.blank++;
        return null;
      }
      if (trimmed.charCodeAt(0) !== OPEN_BRACE) return this.reject(line);
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return this.reject(line);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return this.reject(line);
    this.stats.events++;
    return value as NdjsonObject;
  }

  /** Blank plus invalid lines: what a consumer skipped. */
  get skipped(): number {
    return this.stats.blank + this.stats.invalid;
  }

  private reject(line: string): null {
    this.stats.invalid++;
    if (this.stats.samples.length < MAX_SAMPLES) {
      this.stats.samples.push(line.length > SAMPLE_LENGTH ? `${line.slice(0, SAMPLE_LENGTH)}…` : line);
    }
    return null;
  }
}

/** Cuts a stream of text chunks into lines (without the newline or a trailing CR). */
export class LineSplitter {
  private partial = '';

  /** Calls `onLine` for every complete line in `chunk`. */
  push(chunk: string, onLine: (line: string) => void): void {
    let start = 0;
    let newline = chunk.indexOf('\n');
    if (newline < 0) {
      this.partial += chunk;
      return;
    }
    let head = this.partial + chunk.slice(0, newline);
    this.partial = '';
    onLine(stripCr(head));
    start = newline + 1;
    while ((newline = chunk.indexOf('\n', start)) >= 0) {
      head = chunk.slice(start, newline);
      onLine(stripCr(head));
      start = newline + 1;
    }
    this.partial = chunk.slice(start);
  }

  /** Flushes a last line that had no newline. */
  end(onLine: (line: string) => void): void {
    if (this.partial !== '') onLine(stripCr(this.partial));
    this.partial = '';
  }
}

function stripCr(line: string): string {
  return line.charCodeAt(line.length - 1) === 0x0d ? line.slice(0, -1) : line;
}

/** Streams `file` line by line into `onEvent`, holding one chunk at a time; resolves to the stats. */
export async function readNdjsonFile(
  file: string,
  onEvent: (event: NdjsonObject) => void,
  reader: NdjsonReader = new NdjsonReader(),
): Promise<NdjsonStats> {
  const splitter = new LineSplitter();
  const onLine = (line: string) => {
    const event = reader.read(line);
    if (event) onEvent(event);
  };
  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 256 * 1024 })) {
    splitter.push(chunk as string, onLine);
  }
  splitter.end(onLine);
  return reader.stats;
}
