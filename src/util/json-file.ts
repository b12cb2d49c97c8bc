// The one reader of every JSON input (tasks, config, variables files, evidence read back): a regular file
// under a size limit, a BOM tolerated, duplicate keys and deep nesting refused, errors as `file:line:column`.
import { JsonSyntaxError } from '../errors.js';
import { lineAndColumn, scanJson } from './json-scan.js';
import { INPUT_FILE_LIMIT, readRegularFile } from './regular-file.js';

export { lineAndColumn } from './json-scan.js';

/** Configs and contracts nest a few levels; 64 leaves room and keeps every recursive reader far from the stack limit. */
export const JSON_MAX_DEPTH = 64;

/** Evidence read back (run.json, attempt.json, the verifier's report, merged shards): written by us or a verifier, bigger. */
export const EVIDENCE_FILE_LIMIT = 64 * 1024 * 1024;

export interface JsonFile {
  /** Bytes exactly as read (hashing uses these). */
  bytes: Buffer;
  value: unknown;
}

export interface ReadJsonOptions {
  maxBytes?: number;
}

/** Reads and parses `file`; `label` is the name shown in errors (usually repo-relative). */
export async function readJsonFile(file: string, label = file, options: ReadJsonOptions = {}): Promise<JsonFile> {
  const bytes = await readRegularFile(file, { label, maxBytes: options.maxBytes ?? INPUT_FILE_LIMIT });
  return { bytes, value: parseJsonBytes(bytes, label) };
}

/** Parses JSON bytes as UTF-8 (a leading BOM is skipped), see parseJsonText. */
export function parseJsonBytes(bytes: Buffer, label: string): unknown {
  return parseJsonText(bytes.toString('utf8'), label);
}

/** Parses JSON text, refusing what JSON.parse would silently accept (duplicate keys) or choke on (deep nesting). */
export function parseJsonText(text: string, label: string): unknown {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const problem = scanJson(source, { maxDepth: JSON_MAX_DEPTH });
  if (problem) {
    const { line, column } = lineAndColumn(source, problem.offset);
    throw new JsonSyntaxError(`${label}:${line}:${column}: invalid JSON: ${problem.message}`);
  }
  try {
    return JSON.parse(source);
  } catch (error) {
    // The scanner is at least as strict as JSON.parse; this is a safety net, not a path.
    throw new JsonSyntaxError(`${label}: invalid JSON: ${(error as Error).message}`, { cause: error });
  }
}
