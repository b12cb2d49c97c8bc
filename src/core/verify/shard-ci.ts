// `verify --shard`: an explicit `i/n`, or `auto` (`auto/<n>`) read from the CI's own parallel-job variables.
import { InputError } from '../../errors.js';
import { MAX_SHARDS, parseShard, type Shard } from '../select-tasks.js';

/** One CI's pair of variables; `base` is the index of its first job (0 or 1). */
interface CiShardSource {
  ci: string;
  index: string;
  total: string | null;
  base: 0 | 1;
}

// Checked in this order; the first whose index (or, for GitLab, total) variable is set answers.
// Kubernetes Indexed Jobs give the index only: the total is the Job's `completions`, passed as `auto/<n>`.
const SOURCES: readonly CiShardSource[] = [
  { ci: 'GitLab CI', index: 'CI_NODE_INDEX', total: 'CI_NODE_TOTAL', base: 1 },
  { ci: 'Buildkite', index: 'BUILDKITE_PARALLEL_JOB', total: 'BUILDKITE_PARALLEL_JOB_COUNT', base: 0 },
  { ci: 'CircleCI', index: 'CIRCLE_NODE_INDEX', total: 'CIRCLE_NODE_TOTAL', base: 0 },
  { ci: 'a Kubernetes Indexed Job', index: 'JOB_COMPLETION_INDEX', total: null, base: 0 },
];

export const SHARD_AUTO_VARIABLES = SOURCES.flatMap((s) => (s.total ? [s.index, s.total] : [s.index]));

/** `--shard` as given: `i/n`, `auto` or `auto/<n>`; `auto` reads `env`. Bad input is one line, exit 3. */
export function resolveShard(value: string, env: NodeJS.ProcessEnv): Shard {
  const auto = /^auto(?:\/(\d+))?$/.exec(value);
  if (!auto) return parseShard(value);
  const given = auto[1] === undefined ? null : Number(auto[1]);
  if (given !== null && (given < 1 || given > MAX_SHARDS))
    throw new InputError(`--shard "${value}": the total must be 1 to ${MAX_SHARDS} (auto/<n>, for example auto/4)`);
  return shardFromEnv(env, given, value);
}

function shardFromEnv(env: NodeJS.ProcessEnv, given: number | null, value: string): Shard {
  const set = (name: string | null) => name !== null && env[name] !== undefined && env[name] !== '';
  const source = SOURCES.find((s) => set(s.index) || (s.base === 1 && set(s.total)));
  if (!source) {
    const github = env.GITHUB_ACTIONS === 'true';
    throw new InputError(
      github
        ? `--shard ${value}: GitHub Actions gives a job no shard index; use a matrix and pass --shard \${{ matrix.shard }}/\${{ strategy.job-total }} (docs/ci.md)`
        : `--shard ${value}: no CI shard variable is set (${SHARD_AUTO_VARIABLES.join(', ')}); pass --shard i/n`,
    );
  }
  // GitLab sets CI_NODE_TOTAL=1 and no CI_NODE_INDEX on a job without `parallel:`: the one and only shard.
  const index = set(source.index) ? readInt(env, source.index, source.ci) : source.base;
  const ciTotal = source.total !== null && set(source.total) ? readInt(env, source.total, source.ci) : null;
  if (ciTotal === null && source.total !== null && set(source.index))
    throw new InputError(`--shard ${value}: ${source.index} is set but ${source.total} is not (${source.ci}); pass --shard i/n`);
  if (ciTotal !== null && given !== null && ciTotal !== given)
    throw new InputError(
      `--shard ${value}: ${source.total}=${ciTotal} says ${ciTotal} shards, not ${given}; drop the /${given} or fix the job's parallelism`,
    );
  const total = ciTotal ?? given;
  if (total === null)
    throw new InputError(
      `--shard ${value}: ${source.index} is set but ${source.ci} gives no total; pass --shard auto/<n> with n the number of jobs (the Job's completions)`,
    );
  if (total < 1 || total > MAX_SHARDS)
    throw new InputError(`--shard ${value}: ${source.total}=${total} must be 1 to ${MAX_SHARDS} (${source.ci})`);
  const first = source.base;
  const last = total - 1 + source.base;
  if (index < first || index > last)
    throw new InputError(
      `--shard ${value}: ${source.index}=${index} is outside ${first}..${last} for ${total} shard(s) (${source.ci} counts from ${source.base})`,
    );
  return { index: index - source.base + 1, count: total };
}

function readInt(env: NodeJS.ProcessEnv, name: string, ci: string): number {
  const text = env[name]!.trim();
  if (!/^\d+$/.test(text)) throw new InputError(`--shard auto: ${name}="${env[name]}" is not a whole number (${ci})`);
  return Number(text);
}
