// Turns zod issues into `file: json.path: message` lines, every issue at once.
import type * as z from 'zod';
import { closestKey, knownKeysAt } from './known-keys.js';

/** Formats a JSON path the way a user would type it: `acceptanceCriteria[1].id`. */
export function formatJsonPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(String(key))) out += out ? `.${String(key)}` : String(key);
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/**
 * One line per zod issue, unknown keys split one per key so each names its fix: with `schema`, the known
 * key it most likely meant (`did you mean timeoutSeconds?`).
 */
export function formatZodIssues(label: string, issues: readonly z.core.$ZodIssue[], schema?: z.ZodType): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      const known = schema ? knownKeysAt(schema, issue.path) : [];
      for (const key of issue.keys) {
        const meant = closestKey(key, known);
        const fix = meant ? `did you mean ${formatJsonPath([...issue.path, meant])}?` : 'remove it or check its spelling';
        lines.push(`${label}: ${formatJsonPath([...issue.path, key])}: unknown key; ${fix}`);
      }
      continue;
    }
    // A bad record key: zod's own message is "Invalid key in record"; the key's rule says why.
    const message = issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;
    lines.push(`${label}: ${formatJsonPath(issue.path)}: ${message}`);
  }
  return lines;
}
