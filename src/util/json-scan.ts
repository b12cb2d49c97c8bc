// A linear JSON validator that sees what JSON.parse hides: duplicate keys, nesting depth, and where
// an error is (V8 omits the position for some errors, and finding it by re-parsing is quadratic).

export interface JsonScanProblem {
  /** Character offset of the problem in the scanned text. */
  offset: number;
  message: string;
}

export interface JsonScanOptions {
  /** Deepest nesting of objects and arrays accepted (the recursion below is bounded by it). */
  maxDepth: number;
}

class ScanError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

/** The first problem in `text` as strict JSON (RFC 8259, no duplicate keys, bounded depth), or null. */
export function scanJson(text: string, options: JsonScanOptions): JsonScanProblem | null {
  let i = 0;
  const fail = (message: string, at = i): never => {
    throw new ScanError(at, message);
  };
  const unexpected = (): never =>
    i >= text.length ? fail('Unexpected end of JSON input') : fail(`Unexpected token ${JSON.stringify(text[i])}`);
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

  const scanValue = (depth: number): void => {
    skipSpace();
    const c = text[i];
    if (c === '{' || c === '[') {
      if (depth >= options.maxDepth) fail(`nested deeper than ${options.maxDepth} levels`);
      if (c === '{') scanObject(depth + 1);
      else scanArray(depth + 1);
    } else if (c === '"') scanString();
    else if (c === 't' || c === 'f' || c === 'n') {
      const word = c === 't' ? 'true' : c === 'f' ? 'false' : 'null';
      for (const expected of word) {
        if (text[i] !== expected) unexpected();
        i++;
      }
    } else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i;
      if (!NUMBER.test(text)) fail('Invalid number');
      i = NUMBER.lastIndex;
    } else unexpected();
  };

  const scanObject = (depth: number): void => {
    i++; // {
    const keys = new Map<string, number>();
    skipSpace();
    if (text[i] === '}') {
      i++;
      return;
    }
    for (;;) {
      skipSpace();
      if (text[i] !== '"') fail(i >= text.length ? 'Unexpected end of JSON input' : 'Expected double-quoted property name');
      const start = i;
      const { end, escaped } = scanString();
      const key = escaped ? (JSON.parse(text.slice(start, end)) as string) : text.slice(start + 1, end - 1);
      if (keys.has(key)) {
        fail(
          `duplicate key ${JSON.stringify(key)} (also at line ${lineAndColumn(text, keys.get(key)!).line}); JSON readers disagree on which one wins, keep one`,
          start,
        );
      }
      keys.set(key, start);
      skipSpace();
      if (text[i] !== ':') fail(i >= text.length ? 'Unexpected end of JSON input' : 'Expected ":" after property name');
      i++;
      scanValue(depth);
      skipSpace();
      if (text[i] === '}') {
        i++;
        return;
      }
      if (text[i] !== ',') fail(i >= text.length ? 'Unexpected end of JSON input' : 'Expected "," or "}" after property value');
      i++;
    }
  };

  const scanArray = (depth: number): void => {
    i++; // [
    skipSpace();
    if (text[i] === ']') {
      i++;
      return;
    }
    for (;;) {
      scanValue(depth);
      skipSpace();
      if (text[i] === ']') {
        i++;
        return;
      }
      if (text[i] !== ',') fail(i >= text.length ? 'Unexpected end of JSON input' : 'Expected "," or "]" after array element');
      i++;
    }
  };

  try {
    scanValue(0);
    skipSpace();
    if (i < text.length) fail('Unexpected non-whitespace character after JSON');
    return null;
  } catch (error) {
    if (error instanceof ScanError) return { offset: error.offset, message: error.message };
    throw error;
  }
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
