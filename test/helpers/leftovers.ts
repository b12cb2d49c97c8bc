// What a case checks when it ends, whatever its outcome, in place of an afterEach over a shared list: per
// case, so that cases can run together (`describe.concurrent`) without one seeing a neighbour still running.
import { expect, type TestContext } from 'vitest';
import { processesInside } from './project.js';

/**
 * Returns `watch(root)`: when the case ends, no process may be left inside any watched folder (app, agent,
 * verifier, background helpers), and `more(root)` (if given) holds for each.
 */
export function leftoversOf(
  { onTestFinished }: Pick<TestContext, 'onTestFinished'>,
  more?: (root: string) => void,
): (root: string) => string {
  const roots: string[] = [];
  onTestFinished(() => {
    for (const root of roots) {
      expect(processesInside(root), `processes left in ${root}`).toEqual([]);
      more?.(root);
    }
  });
  return (root) => {
    roots.push(root);
    return root;
  };
}

/**
 * A case's time limit in a file whose cases run together: each shares the two cores with its neighbours
 * (five at once, vitest's maxConcurrency) and the other worker, so it takes several times what it takes
 * alone. A limit for a hang, not a speed check.
 */
export const CONCURRENT_TIMEOUT = 240_000;
