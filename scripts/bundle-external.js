// The packages the bundle (scripts/bundle.js) leaves outside: only some commands use them, and they are
// large, so the bundle \`require\`s them from node_modules when first used. test/e2e/light-commands.test.ts
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

/** Whether the package \`name\` (as a trace names it) is one the bundle leaves outside. */
export const isExternal = (name) => EXTERNAL.some((entry) => (entry.endsWith('/*') ? name.startsWith(entry.slice(0, -1)) : name === entry));
