// The setup file of a suite whose test files share their modules (vitest's `isolate: false`): it runs
// before every test file, where a helper's own top-level hook runs only for the first file that loads the
// helper. Each file's temp folders go when the file ends, as they do in an isolated suite.
import { afterAll } from 'vitest';
import { removeTempDirs } from './temp.js';

afterAll(removeTempDirs);
