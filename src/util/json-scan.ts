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
  let i = 0;
  const fail = (message: string, at = i, duplicateKey?: string): never => {
    throw new ScanError(at, message, duplicateKey);
  };
  const endOr = (message: string): never => fail(i >= text.length ? 'Unexpected end of JSON input' : message);
  const skipSpace = () => {
    for (let c = text.charCodeAt(i); c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = text.charCodeAt(++i));
  };

  // Returns the offset just past the closing quote; `i` is at the opening one.
  const scanString = (): { end: number; escaped: boolean } => {
    const start = i;
    let escaped = false;
    for (i++; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x22) return { end: ++i, escaped };
      if (c < 0x20) fail('Bad control character in string literal');
      if (c === 0x5c) {
        escaped = true;
        const next = text[++i];
        if (next === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail('Bad Unicode escape');
          i += 4;
        } else if (next === undefined || !ESCAPES.has(next)) fail('Bad escaped character');
      }
    }
    return fail('Unterminated string in JSON', start);
  };

  // The open containers, innermost last: an object's keys so far (key → offset), or null for an array.
  const open: (Map<string, number> | null)[] = [];

  // A key of the innermost object and its colon; `i` is where the key should start.
  const scanKey = (): void => {
    skipSpace();
    if (text[i] !== '"') endOr('Expected double-quoted property name');
    const start = i;
    const { end, escaped } = scanString();
    const key = escaped ? (JSON.parse(text.slice(start, end)) as string) : text.slice(start + 1, end - 1);
    const keys = open.at(-1)!;
    const first = keys.get(key);
    if (first !== undefined) {
      const line = lineAndColumn(text, first).line;
      fail(`duplicate key ${JSON.stringify(key)} (also at line ${line}); JSON readers disagree on which one wins, keep one`, start, key);
    }
    keys.set(key, start);
    skipSpace();
    if (text[i] !== ':') endOr('Expected ":" after property name');
    i++;
  };

  // Opens `{` or `[` at `i`; true when it holds a first member to scan, false when it closed at once.
  const openContainer = (c: string): boolean => {
    if (open.length >= options.maxDepth) fail(`nested deeper than ${options.maxDepth} levels`);
    i++;
    skipSpace();
    if (text[i] === (c === '{' ? '}' : ']')) {
      i++;
      return false;
    }
    open.push(c === '{' ? new Map() : null);
    if (c === '{') scanKey();
    return true;
  };

  const scanScalar = (c: string | undefined): void => {
    if (c === '"') scanString();
    else if (c === 't' || c === 'f' || c === 'n') {
      const word = c === 't' ? 'true' : c === 'f' ? 'false' : 'null';
      for (const expected of word) {
        if (text[i] !== expected) endOr(`Unexpected token ${JSON.stringify(text[i])}`);
        i++;
      }
    } else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i;
      if (!NUMBER.test(text)) fail('Invalid number');
      i = NUMBER.lastIndex;
    } else endOr(`Unexpected token ${JSON.stringify(text[i])}`);
  };

  // After a value: closes what ends here; true when a next member follows (its key already scanned).
  const nextMember = (): boolean => {
    while (open.length > 0) {
      skipSpace();
      const inObject = open.at(-1) !== null;
      if (text[i] === (inObject ? '}' : ']')) {
        i++;
        open.pop();
        continue;
      }
      if (text[i] !== ',') endOr(inObject ? 'Expected "," or "}" after property value' : 'Expected "," or "]" after array element');
      i++;
      if (inObject) scanKey();
      return true;
    }
    return false;
  };

  try {
    for (;;) {
      skipSpace();
      const c = text[i];
      if (c === '{' || c === '[') {
        if (openContainer(c)) continue; // its first member's value is next
      } else scanScalar(c);
      if (!nextMember()) break;
    }
    skipSpace();
    if (i < text.length) fail('Unexpected non-whitespace character after JSON');
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
