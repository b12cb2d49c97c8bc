// The one JSON scanner: a linear validator that sees what JSON.parse hides: duplicate keys, nesting
// depth, and where an error is (V8 omits the position for some errors, and finding it by re-parsing is
// quadratic). Files are read through it (json-file.ts), and so are the verifiers' NDJSON lines.

export interface JsonScanProblem {
  /** Character offset of the problem in the scanned text. */
  offset: number;
  message: string;
  /** When the problem is a key repeated in one object: that key, decoded. */
  duplicateKey?: string;
}

export interface JsonScanOptions {
  /** Deepest nesting of objects and arrays accepted. */
  maxDepth: number;
}

class ScanError extends Error {
  constructor(
    readonly offset: number,
    message: string,
    readonly duplicateKey?: string,
  ) {
    super(message);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

/**
 * The first problem in `text` as strict JSON (RFC 8259, no duplicate keys, bounded depth), or null.
 * Iterative, with the open objects and arrays on a stack of its own: no input nests it into a stack
 * overflow, whatever `maxDepth` allows.
 */
export function scanJson(text: string, options: JsonScanOptions): JsonScanProblem | null {
  try {
    new JsonScanner(text, options.maxDepth).scan();
    return null;
  } catch (error) {
    if (error instanceof ScanError)
      return {
        offset: error.offset,
        message: error.message,
        ...(error.duplicateKey !== undefined ? { duplicateKey: error.duplicateKey } : {}),
      };
    throw error;
  }
}

/** One scan of one text: `i` is where it stands, `open` the containers around it. Throws ScanError at the first problem. */
class JsonScanner {
  private i = 0;
  // The open containers, innermost last: an object's keys so far (key → offset), or null for an array.
  private readonly open: (Map<string, number> | null)[] = [];

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {}

  scan(): void {
    for (;;) {
      this.skipSpace();
      const c = this.text[this.i];
      if (c === '{' || c === '[') {
        if (this.openContainer(c)) continue; // its first member's value is next
      } else this.scanScalar(c);
      if (!this.nextMember()) break;
    }
    this.skipSpace();
    if (this.i < this.text.length) this.fail('Unexpected non-whitespace character after JSON');
  }

  private fail(message: string, at = this.i, duplicateKey?: string): never {
    throw new ScanError(at, message, duplicateKey);
  }

  private endOr(message: string): never {
    return this.fail(this.i >= this.text.length ? 'Unexpected end of JSON input' : message);
  }

  private skipSpace(): void {
    const { text } = this;
    for (let c = text.charCodeAt(this.i); c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = text.charCodeAt(++this.i));
  }

  // Returns the offset just past the closing quote; `i` is at the opening one.
  private scanString(): { end: number; escaped: boolean } {
    const { text } = this;
    const start = this.i;
    let escaped = false;
    for (this.i++; this.i < text.length; this.i++) {
      const c = text.charCodeAt(this.i);
      if (c === 0x22) return { end: ++this.i, escaped };
      if (c < 0x20) this.fail('Bad control character in string literal');
      if (c === 0x5c) {
        escaped = true;
        const next = text[++this.i];
        if (next === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(this.i + 1, this.i + 5))) this.fail('Bad Unicode escape');
          this.i += 4;
        } else if (next === undefined || !ESCAPES.has(next)) this.fail('Bad escaped character');
      }
    }
    return this.fail('Unterminated string in JSON', start);
  }

  // A key of the innermost object and its colon; `i` is where the key should start.
  private scanKey(): void {
    const { text } = this;
    this.skipSpace();
    if (text[this.i] !== '"') this.endOr('Expected double-quoted property name');
    const start = this.i;
    const { end, escaped } = this.scanString();
    const key = escaped ? (JSON.parse(text.slice(start, end)) as string) : text.slice(start + 1, end - 1);
    const keys = this.open.at(-1)!;
    const first = keys.get(key);
    if (first !== undefined) {
      const line = lineAndColumn(text, first).line;
      this.fail(
        `duplicate key ${JSON.stringify(key)} (also at line ${line}); JSON readers disagree on which one wins, keep one`,
        start,
        key,
      );
    }
    keys.set(key, start);
    this.skipSpace();
    if (text[this.i] !== ':') this.endOr('Expected ":" after property name');
    this.i++;
  }

  // Opens `{` or `[` at `i`; true when it holds a first member to scan, false when it closed at once.
  private openContainer(c: string): boolean {
    if (this.open.length >= this.maxDepth) this.fail(`nested deeper than ${this.maxDepth} levels`);
    this.i++;
    this.skipSpace();
    if (this.text[this.i] === (c === '{' ? '}' : ']')) {
      this.i++;
      return false;
    }
    this.open.push(c === '{' ? new Map() : null);
    if (c === '{') this.scanKey();
    return true;
  }

  private scanScalar(c: string | undefined): void {
    const { text } = this;
    if (c === '"') this.scanString();
    else if (c === 't' || c === 'f' || c === 'n') {
      const word = c === 't' ? 'true' : c === 'f' ? 'false' : 'null';
      for (const expected of word) {
        if (text[this.i] !== expected) this.endOr(`Unexpected token ${JSON.stringify(text[this.i])}`);
        this.i++;
      }
    } else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
      NUMBER.lastIndex = this.i;
      if (!NUMBER.test(text)) this.fail('Invalid number');
      this.i = NUMBER.lastIndex;
    } else this.endOr(`Unexpected token ${JSON.stringify(text[this.i])}`);
  }

  // After a value: closes what ends here; true when a next member follows (its key already scanned).
  private nextMember(): boolean {
    while (this.open.length > 0) {
      this.skipSpace();
      const inObject = this.open.at(-1) !== null;
      if (this.text[this.i] === (inObject ? '}' : ']')) {
        this.i++;
        this.open.pop();
        continue;
      }
      if (this.text[this.i] !== ',')
        this.endOr(inObject ? 'Expected "," or "}" after property value' : 'Expected "," or "]" after array element');
      this.i++;
      if (inObject) this.scanKey();
      return true;
    }
    return false;
  }
}

/**
 * The first key that appears twice in one object of `json`, at any depth (a nested verdict's
 * `confirmed` matters as much as a top-level `status`), or null. JSON.parse keeps the last of two
 * equal keys: `{"status":"failed","status":"passed"}` reads as passed. A producer we trust never
 * writes that; whoever does is steering the reader. Escaped spellings of a key compare decoded.
 */
export function firstDuplicateKey(json: string): string | null {
  return scanJson(json, { maxDepth: Infinity })?.duplicateKey ?? null;
}

/** 1-based line and column of a character offset. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}
