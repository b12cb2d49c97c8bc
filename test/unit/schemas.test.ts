import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderSchemas } from '../../src/schemas.js';

describe('published JSON Schemas', () => {
  it('match the zod schemas (run `npm run schemas` when this fails)', () => {
    for (const [file, text] of Object.entries(renderSchemas())) {
      const committed = readFileSync(new URL(`../../schemas/${file}`, import.meta.url), 'utf8');
      expect(committed, `schemas/${file} is stale`).toBe(text);
    }
  });
});
