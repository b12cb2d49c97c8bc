// `verify --shard auto`: each CI's own parallel-job variables, their bases, and a clear exit-3 refusal otherwise.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { resolveShard } from '../../src/core/verify/shard-ci.js';

const refusal = (value: string, env: NodeJS.ProcessEnv) => {
  try {
    resolveShard(value, env);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).exitCode).toBe(3);
    return (error as Error).message;
  }
  throw new Error(`--shard ${value} was accepted`);
};

describe('resolveShard', () => {
  it('at most 1000 shards, from --shard i/n, auto/<n> or a CI variable: more is bad input, not a plan to split into', () => {
    expect(() => resolveShard('1/5000000000', {})).toThrow('at most 1000 shards');
    expect(() => resolveShard('1/1001', {})).toThrow('at most 1000 shards');
    expect(resolveShard('1000/1000', {})).toEqual({ index: 1000, count: 1000 });
    expect(() => resolveShard('auto/2000000', { JOB_COMPLETION_INDEX: '0' })).toThrow('the total must be 1 to 1000');
    expect(() => resolveShard('auto', { CI_NODE_INDEX: '1', CI_NODE_TOTAL: '5000000000' })).toThrow('must be 1 to 1000');
  });

  it('an explicit i/n is taken as it is, whatever the CI says', () => {
    expect(resolveShard('2/4', { CI_NODE_INDEX: '1', CI_NODE_TOTAL: '3' })).toEqual({ index: 2, count: 4 });
    expect(refusal('5/4', {})).toContain('must look like i/n with 1 ≤ i ≤ n');
  });

  it('GitLab CI counts from 1 (CI_NODE_INDEX/CI_NODE_TOTAL)', () => {
    expect(resolveShard('auto', { CI_NODE_INDEX: '1', CI_NODE_TOTAL: '3' })).toEqual({ index: 1, count: 3 });
    expect(resolveShard('auto', { CI_NODE_INDEX: '3', CI_NODE_TOTAL: '3' })).toEqual({ index: 3, count: 3 });
    expect(refusal('auto', { CI_NODE_INDEX: '0', CI_NODE_TOTAL: '3' })).toContain('CI_NODE_INDEX=0 is outside 1..3');
    // A job without `parallel:` has CI_NODE_TOTAL=1 and no index: the one shard.
    expect(resolveShard('auto', { CI_NODE_TOTAL: '1' })).toEqual({ index: 1, count: 1 });
    expect(refusal('auto', { CI_NODE_INDEX: '2' })).toContain('CI_NODE_INDEX is set but CI_NODE_TOTAL is not');
  });

  it('Buildkite counts from 0 (BUILDKITE_PARALLEL_JOB/BUILDKITE_PARALLEL_JOB_COUNT)', () => {
    expect(resolveShard('auto', { BUILDKITE_PARALLEL_JOB: '0', BUILDKITE_PARALLEL_JOB_COUNT: '4' })).toEqual({ index: 1, count: 4 });
    expect(resolveShard('auto', { BUILDKITE_PARALLEL_JOB: '3', BUILDKITE_PARALLEL_JOB_COUNT: '4' })).toEqual({ index: 4, count: 4 });
    expect(refusal('auto', { BUILDKITE_PARALLEL_JOB: '4', BUILDKITE_PARALLEL_JOB_COUNT: '4' })).toContain(
      'BUILDKITE_PARALLEL_JOB=4 is outside 0..3',
    );
  });

  it('CircleCI counts from 0 (CIRCLE_NODE_INDEX/CIRCLE_NODE_TOTAL)', () => {
    expect(resolveShard('auto', { CIRCLE_NODE_INDEX: '1', CIRCLE_NODE_TOTAL: '2' })).toEqual({ index: 2, count: 2 });
    expect(refusal('auto', { CIRCLE_NODE_INDEX: 'one', CIRCLE_NODE_TOTAL: '2' })).toContain(
      'CIRCLE_NODE_INDEX="one" is not a whole number',
    );
  });

  it('a Kubernetes Indexed Job gives the index (from 0); the total comes from auto/<n>', () => {
    expect(resolveShard('auto/3', { JOB_COMPLETION_INDEX: '0' })).toEqual({ index: 1, count: 3 });
    expect(resolveShard('auto/3', { JOB_COMPLETION_INDEX: '2' })).toEqual({ index: 3, count: 3 });
    expect(refusal('auto', { JOB_COMPLETION_INDEX: '2' })).toContain('pass --shard auto/<n>');
    expect(refusal('auto/3', { JOB_COMPLETION_INDEX: '3' })).toContain('JOB_COMPLETION_INDEX=3 is outside 0..2');
    expect(refusal('auto/0', { JOB_COMPLETION_INDEX: '0' })).toContain('must be 1 to 1000');
  });

  it('auto/<n> must agree with a CI that gives its own total', () => {
    expect(resolveShard('auto/3', { CI_NODE_INDEX: '2', CI_NODE_TOTAL: '3' })).toEqual({ index: 2, count: 3 });
    expect(refusal('auto/4', { CI_NODE_INDEX: '2', CI_NODE_TOTAL: '3' })).toContain('CI_NODE_TOTAL=3 says 3 shards, not 4');
  });

  it('with no CI variable: exit 3 naming them, and on GitHub Actions the matrix to use instead', () => {
    expect(refusal('auto', {})).toMatch(
      /no CI shard variable is set \(CI_NODE_INDEX, CI_NODE_TOTAL, BUILDKITE_PARALLEL_JOB, .*JOB_COMPLETION_INDEX\); pass --shard i\/n/,
    );
    expect(refusal('auto', { GITHUB_ACTIONS: 'true' })).toContain('--shard ${{ matrix.shard }}/${{ strategy.job-total }}');
    expect(refusal('auto', { CI_NODE_INDEX: '' })).toContain('no CI shard variable');
    expect(refusal('automatic', {})).toContain('must look like i/n');
  });
});
