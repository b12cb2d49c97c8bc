// Kane's credits, summed from the real captures' run_end events (reference §4: a run's own
// credits_consumed; the verdict's only when the run_end has none, as on a failing replay).
import { describe, expect, it } from 'vitest';
import { kaneAdapter } from '../../src/verifiers/kane/adapter.js';
import { KaneStreamState } from '../../src/verifiers/kane/stream-state.js';
import { corpusTest, kaneFixture, simpleTest, withVerifies } from './kane-harness.js';

describe('Kane credits', () => {
  it.each([
    ['t7-cart_discount-author', 'cart_discount_test.md', 27.3726], // 6.42405 + 7.49581 + 13.45278 (the verdict's 4.98 is part of the run's)
    ['t1-shop_filter-author', 'shop_filter_test.md', 33.4646], // 7.72498 + 7.332115 + 10.37542 + 8.032105
  ])('%s: %s credits', async (capture, test, credits) => {
    const fixture = kaneFixture({ text: withVerifies(corpusTest(test)), name: test, env: { FAKE_KANE_REPLAY: capture } });
    const result = await kaneAdapter.verify(fixture.ctx);
    expect(result.details.creditsConsumed).toBe(credits);
  });

  it('a stream that reports no credits has none (null), not 0', async () => {
    const fixture = kaneFixture({ text: simpleTest(2), env: { FAKE_KANE_SCENARIO: 'false-green' } });
    const result = await kaneAdapter.verify(fixture.ctx);
    expect(result.details.creditsConsumed).toBeNull(); // step 1 is a failing replay with no verdict; step 2 never ran
  });

  it("a failing replay counts its investigation (the verdict's credits); a run's own credits are not doubled", () => {
    const state = new KaneStreamState();
    state.feed({ type: 'test_md_step_start', step_index: 1, heading: 'a' });
    state.feed({
      type: 'run_end',
      status: 'failed',
      reason: 'assertion_failed: @ step 3',
      verdict: { confirmed: false, credits_consumed: 2.25 },
    });
    state.feed({ type: 'test_md_step_end', step_index: 1, status: 'failed' });
    state.feed({ type: 'test_md_step_start', step_index: 2, heading: 'b' });
    state.feed({ type: 'run_end', status: 'failed', credits_consumed: 4, verdict: { credits_consumed: 1 } });
    state.feed({ type: 'run_end', status: 'passed', credits_consumed: 'lots' });
    state.feed({ type: 'run_end', status: 'passed', credits_consumed: -3 });
    expect(state.result().creditsConsumed).toBe(6.25);
  });
});
