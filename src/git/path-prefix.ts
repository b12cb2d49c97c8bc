// Repository-relative path prefixes, as users write them in exclude lists.

/** Normalises a prefix: POSIX separators, no leading `./`, no trailing `/`. */
export function normalizePrefix(prefix: string): string {
  return prefix
    .replaceAll('\\', '/')
    .replace(/^(\.\/)+/, '')
    .replace(/\/+$/, '');
}

/**
 * Whether `relPath` is one of `prefixes` or lies under one (`a/b` is under `a/`, `ab` is not). A prefix
 * ending in a star, like `tests/helpers/helper-output-login-add-*`, names the folders directly in that one
 * directory whose name starts with the rest: never a file of that name, never such a folder elsewhere
 * (an app's `public/helper-output-x/` is the agent's work, not the verifier's output).
 */
export function isUnderPrefix(relPath: string, prefixes: readonly string[]): boolean {
  const p = relPath.replace(/\/+$/, '');
  for (const raw of prefixes) {
    const prefix = normalizePrefix(raw);
    // An empty prefix would silently exclude the whole tree; it is a mistake, not a wish.
    if (prefix === '' || prefix === '*') continue;
    if (prefix.endsWith('*')) {
      if (isInFolderPattern(p, prefix.slice(0, -1))) return true;
      continue;
    }
    if (p === prefix || p.startsWith(`${prefix}/`)) return true;
  }
  return false;
}

/** `a/b/name-x/file` is in folder pattern `a/b/name-`: same parent, a folder whose name starts so. */
function isInFolderPattern(p: string, stem: string): boolean {
  const slash = stem.lastIndexOf('/');
  const parent = slash < 0 ? '' : stem.slice(0, slash + 1);
  const start = stem.slice(slash + 1);
  if (start === '' || !p.startsWith(parent)) return false;
  const segments = p.slice(parent.length).split('/');
  return segments.length > 1 && (segments[0] as string).startsWith(start);
}

/** The git pathspec that leaves `prefix` out (a folder pattern as a glob, with its literal part escaped). */
export function excludePathspec(prefix: string): string {
  const p = normalizePrefix(prefix);
  if (!p.endsWith('*')) return `:(top,exclude,literal)${p}`;
  return `:(top,exclude,glob)${p.slice(0, -1).replace(/[*?[\]\\]/g, '\\$&')}*/**`;
}
