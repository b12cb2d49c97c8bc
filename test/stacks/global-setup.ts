// Once per `npm run test:stacks`: Elenchos packed from this checkout, the tarball every scaffold installs
// (docs/getting-started.md: by its absolute path). One pack for all files, not one per file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { packElenchos } from '../helpers/packed.js';

declare module 'vitest' {
  export interface ProvidedContext {
    elenchosTarball: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(path.join(tmpdir(), 'elenchos-stacks-pack-'));
  project.provide('elenchosTarball', packElenchos(dir).tarball);
  return () => rmSync(dir, { recursive: true, force: true });
}
