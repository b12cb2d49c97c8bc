// The packages the bundle (scripts/bundle.js) leaves outside: only some commands use them, and they are
// large, so the bundle `require`s them from node_modules when first used. test/e2e/light-commands.test.ts
// checks that a light command requires none of them.
export const EXTERNAL = [
  'typescript',
  'sigstore',
  '@sigstore/*',
  '@modelcontextprotocol/sdk',
  'tar',
  'fast-glob',
  'wait-on',
  'yauzl',
  'picomatch',
];

/** Whether an entry of EXTERNAL covers `specifier`: a package name (`@sigstore/tuf`) or a path in it (`tar/lib/x.js`). */
export function covers(entry, specifier) {
  const base = entry.replace(/\/\*$/, '');
  return specifier === base || specifier.startsWith(`${base}/`);
}

/** Whether the bundle leaves `specifier` (a package, or a path in one) outside. */
export const isExternal = (specifier) => EXTERNAL.some((entry) => covers(entry, specifier));
