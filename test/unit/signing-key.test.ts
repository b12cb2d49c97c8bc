// The signing key is read once per environment (src/util/signing-key.ts); a best-of candidate's copy of the
// environment keeps it, so `--signing-key-file` signs every candidate's seal and its sandbox hides the file.
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { loadSigningKey, signingKeyFor, signingKeySource, withSigningKeyOf } from '../../src/util/signing-key.js';
import { tempDir } from '../helpers/temp.js';

it('a copy made with withSigningKeyOf keeps the key file given on the command line; a plain copy does not', () => {
  const file = path.join(tempDir(), 'key');
  writeFileSync(file, 'k3y-from-the-file\n');
  chmodSync(file, 0o600);
  const env: NodeJS.ProcessEnv = { PATH: '/usr/bin' };
  expect(loadSigningKey(env, file)).toMatchObject({ key: 'k3y-from-the-file', source: 'file', file });

  const candidate = withSigningKeyOf(env, { ELENCHOS_CANDIDATE: 'a' });
  expect(candidate.ELENCHOS_CANDIDATE).toBe('a');
  expect(signingKeyFor(candidate)).toBe('k3y-from-the-file');
  expect(signingKeySource(candidate).file).toBe(file); // what the sandbox hides
  expect(signingKeyFor({ ...env, ELENCHOS_CANDIDATE: 'b' })).toBeUndefined(); // before: the candidate sealed unsigned
});
