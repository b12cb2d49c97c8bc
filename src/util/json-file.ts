// Reads a JSON file and turns every parse failure into `file:line:column: message`.
import { readFile } from 'node:fs/promises';
import { FileNotFoundError, JsonSyntaxError } from '../errors.js';

export interface JsonFile {
  /** Bytes exactly as read (hashing uses these). */
  bytes: Buffer;
  value: unknown;
}

/** Reads and parses `file`; `label` is the name shown in errors (usually repo-relative). */
export async function readJsonFile(file: string, label = file): Promise<JsonFile> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : String(code);
    throw new FileNotFoundError(`${label}: cannot read (${why}); check the path`, { cause: error });
  }
  return { bytes, value: parseJsonText(bytes.toString('utf8'), label) };
}

/** Parses JSON text, reporting a syntax error with its line and column. */
export function parseJsonText(text: string, label: string): unknown {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(source);
  } catch (error) {
    const message = (error as Error).message;
    const offset = locateJsonError(source, message);
    const { line, column } = lineAndColumn(source, offset);
    const reason = message.replace(/ in JSON at position \d+.*$/, '').replace(/, "[\s\S]*" is not valid JSON$/, '')
      .replace(/'([\s\S])'/, (_m, ch: string) => JSON.stringify(ch));
    throw new JsonSyntaxError(`${label}:${line}:${column}: invalid JSON: ${reason}`, { cause: error });
  }
}

function locateJsonError(source: string, message: string): number {
  const match = /at position (\d+)/.exec(message);
  if (match) return Number(match[1]);
  if (/Unexpected end of JSON input/.test(message)) return source.length;
  // V8 omits the position for some tokens: the error sits at the first prefix that fails
  // for a reason other than running out of input.
  for (let end = 1; end <= source.length; end++) {
    try {
      JSON.parse(source.slice(0, end));
    } catch (error) {
      const m = (error as Error).message;
      if (/Unexpected end of JSON input/.test(m)) continue;
      const pos = /at position (\d+)/.exec(m);
      if (pos && Number(pos[1]) >= end) continue;
      return end - 1;
    }
  }
  return source.length;
}

/** 1-based line and column of a character offset. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
