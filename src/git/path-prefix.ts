// Repository-relative path prefixes, as users write them in exclude lists.

/** Normalises a prefix: POSIX separators, no leading `./`, no trailing `/`. */
export function normalizePrefix(prefix: string): string {
  return prefix.replaceAll('\\', '/').replace(/^(\.\/)+/, '').replace(/\/+$/, '');
}

/** Whether `relPath` is one of `prefixes` or lies under one (`a/b` is under `a/`, `ab` is not). */
export function isUnderPrefix(relPath: string, prefixes: readonly string[]): boolean {
  const p = relPath.replace(/\/+$/, '');
  for (const raw of prefixes) {
    const prefix = normalizePrefix(raw);
    // An empty prefix would silently exclude the whole tree; it is a mistake, not a wish.
    if (prefix === '') continue;
    if (p === prefix || p.startsWith(`${prefix}/`)) return true;
  }
  return false;
}
