#!/usr/bin/env node
// Writes schemas/*.schema.json from the zod schemas (the single source of truth).
// `--check` exits 1 when a committed file is stale instead of writing.
import { readFile, writeFile } from 'node:fs/promises';
import { renderSchemas } from '../dist/schemas.js';

const check = process.argv.includes('--check');
let stale = 0;
for (const [file, text] of Object.entries(renderSchemas())) {
  const target = new URL(`../schemas/${file}`, import.meta.url);
  const current = await readFile(target, 'utf8').catch(() => '');
  if (current === text) continue;
  if (check) {
    console.error(`schemas/${file} is stale: run npm run schemas`);
    stale++;
  } else {
    await writeFile(target, text);
    console.log(`wrote schemas/${file}`);
  }
}
process.exitCode = stale > 0 ? 1 : 0;
