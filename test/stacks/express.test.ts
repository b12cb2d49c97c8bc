// Express 5 through the whole loop: a static page filled from a JSON API.
import { describe, it } from 'vitest';
import { EXPRESS_APP, EXPRESS_EDITS, EXPRESS_SPEC } from './express-task.js';
import { expectVerifiedLoop, hasChromium, makeStack } from './stack.js';

describe.runIf(hasChromium)('Express 5 app', () => {
  it('run → FAIL → repair → VERIFIED, then verify: VERIFIED, nothing ignored, nothing flagged', async () => {
    const stack = makeStack({
      app: 'express',
      appConfig: EXPRESS_APP,
      spec: EXPRESS_SPEC,
      criteria: ['the page lists the tasks', 'done tasks are marked'],
      edits: EXPRESS_EDITS,
    });
    await expectVerifiedLoop(stack);
  });
});
