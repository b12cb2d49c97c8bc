// TEST ONLY: `ELENCHOS_TEST_PAUSE_AT=<phase>` makes a run stop at that named point until the test lets it go,
// so fault-injection tests can kill or interrupt Elenchos at an exact phase without sleeping.
// It only waits: it reads no data and changes none, so it cannot alter a verdict (docs/verification.md).
import { access, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The points a test can pause at, in the order a run reaches them. */
export const PAUSE_POINTS = ['setup', 'cache-copy', 'baseline', 'app', 'teardown', 'sealing'] as const;
export type PausePoint = (typeof PAUSE_POINTS)[number];

/**
 * When `ELENCHOS_TEST_PAUSE_AT` names `point` (or `point@name`: only in best-of candidate `name`'s run), writes `<ELENCHOS_TEST_PAUSE_DIR>/<point>.reached`
 * (holding our pid) and waits, polling, until `<point>.go` appears; signals are still handled meanwhile.
 * Without the variable it returns at once; an aborted `signal` ends the wait too.
 */
export async function pauseForTest(point: PausePoint, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<void> {
  const wanted = env.ELENCHOS_TEST_PAUSE_AT;
  const dir = env.ELENCHOS_TEST_PAUSE_DIR;
  if (!wanted || !dir) return;
  const candidate = env.ELENCHOS_CANDIDATE;
  if (!wanted.split(',').some((w) => w === point || (candidate !== undefined && w === `${point}@${candidate}`))) return;
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, `${point}.reached`), `${process.pid}\n`);
  const go = path.join(dir, `${point}.go`);
  while (!signal?.aborted) {
    if (
      await access(go).then(
        () => true,
        () => false,
      )
    )
      return;
    // An abort rejects the sleep at once; the loop's condition then ends the wait.
    await sleep(20, undefined, { signal }).catch(() => undefined);
  }
}
