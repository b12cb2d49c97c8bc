// A script (node, CommonJS) that forges an index entry, shared by the attacks on the index.

/** Rewrites page.html's index entry (file: $INDEX or the worktree's) to name HEAD's blob, keeping its stat data. */
export const FORGE_INDEX = `const { execSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const { readFileSync, writeFileSync } = require('node:fs');
const orig = execSync('git rev-parse HEAD:page.html').toString().trim();
const file = process.env.INDEX || execSync('git rev-parse --git-path index').toString().trim();
const index = readFileSync(file);
let at = 12;
for (let i = 0; i < index.readUInt32BE(8); i++) {
  const flags = index.readUInt16BE(at + 60);
  const start = at + 62 + (flags & 0x4000 ? 2 : 0);
  const name = index.subarray(start, start + (flags & 0xfff)).toString();
  if (name === 'page.html') Buffer.from(orig, 'hex').copy(index, at + 40);
  at += (start - at + (flags & 0xfff) + 8) & ~7;
}
createHash('sha1').update(index.subarray(0, index.length - 20)).digest().copy(index, index.length - 20);
writeFileSync(file, index);
`;
