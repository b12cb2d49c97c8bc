// Repository-relative path prefixes, as users write them in exclude lists.

/** Normalises a prefix: POSIX separators, no leading `./`, no trailing `/`. */
export function normalizePrefix(prefix: string): string {
  return prefix.replaceAll('\\', '/').replace(/^(\.\/)+/, '').replace(/\/+$/, '');
}

/**
 * Whether `relPath` is one of `prefixes` or lies under one (`a/b` is under `a/`, `ab` is not). A prefix
 * that starts with two stars and a slash, like the one for Kane's helper-output folders, matches a folder
 * at any depth whose name starts with the rest (its trailing star dropped).
 */
export function isUnderPrefix(relPath: string, prefixes: readonly string[]): boolean {
  const p = relPath.replace(/\/+$/, '');
  for (const raw of prefixes) {
    const prefix = normalizePrefix(raw);
    // An empty prefix would silently exclude the whole tree; it is a mistake, not a wish.
    if (prefix === '') continue;
    if (prefix.startsWith('**/')) {
      const start = prefix.slice(3).replace(/\*$/, '');
      if (p.split('/').slice(0, -1).some((segment) => segment.startsWith(start))) return true;
      continue;
    }
    if (p === prefix || p.startsWith(`${prefix}/`)) return true;
  }
  return false;
}
