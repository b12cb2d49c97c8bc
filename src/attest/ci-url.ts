// The CI run that produced a verdict, for the test-result predicate's `url`.

/** The run's URL from the CI's own variables (GitHub Actions, GitLab, Buildkite, CircleCI), else null. */
export function ciRunUrl(env: NodeJS.ProcessEnv): string | null {
  const { GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT } = env;
  if (GITHUB_SERVER_URL && GITHUB_REPOSITORY && GITHUB_RUN_ID) {
    // The attempt too: a re-run has the same run id, and its logs are another page.
    const attempt = GITHUB_RUN_ATTEMPT ? `/attempts/${GITHUB_RUN_ATTEMPT}` : '';
    return `${GITHUB_SERVER_URL}/${GITHUB_REPOSITORY}/actions/runs/${GITHUB_RUN_ID}${attempt}`;
  }
  return env.CI_JOB_URL || env.BUILDKITE_BUILD_URL || env.CIRCLE_BUILD_URL || null;
}
