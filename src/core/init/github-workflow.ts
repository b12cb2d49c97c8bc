// The GitHub Actions workflow `elenchos init --ci github` writes: a matrix of `verify --shard`, then one merge.
import type { InitVerifier } from './detect-project.js';
import { renderPinEnv, renderPinnedInstall, type PinnedElenchos } from './pinned-elenchos.js';
import { shardKeyName } from '../verify/shard-seal.js';

export const GITHUB_WORKFLOW = '.github/workflows/elenchos.yml';

export interface WorkflowOptions {
  verifier: InitVerifier;
  /** Installs the project's dependencies (for its app and verifier; Elenchos itself comes from `pin`). */
  install: string;
  /** The Elenchos every job runs, pinned at init. */
  pin: PinnedElenchos;
}

// Kane is told where Chromium is (KANE_CLI_CHROME_PATH) rather than downloading a browser of its own;
// Playwright installs its Chromium with the system libraries it needs.
export const VERIFIER_STEPS: Record<InitVerifier, string> = {
  kane: `      - name: Install Chromium
        id: chromium
        uses: browser-actions/setup-chrome@v2
        with:
          install-dependencies: true
      - name: Install the verifier (Kane CLI)
        run: npm install -g @testmuai/kane-cli && kane-cli --version`,
  playwright: `      - name: Install Chromium for Playwright
        run: npx playwright install --with-deps chromium`,
};

export const VERIFIER_ENV: Record<InitVerifier, string> = {
  kane: `        env:
          # Kane's credentials, from the repository's secrets (never passed to the app or an agent).
          LT_USERNAME: \${{ secrets.LT_USERNAME }}
          LT_ACCESS_KEY: \${{ secrets.LT_ACCESS_KEY }}
          KANE_CLI_CHROME_PATH: \${{ steps.chromium.outputs.chrome-path }}
`,
  playwright: '',
};

/** The matrix init writes: three shards (each has its line in the verify job's outputs). */
const SHARDS = [1, 2, 3];

/**
 * The project's install without its install scripts (npm, pnpm and yarn classic take `--ignore-scripts`):
 * in the shard job it would run outside the sandbox, where a process it leaves could rewrite what verify writes.
 */
export function ignoreScripts(install: string): string {
  if (/--ignore-scripts\b/.test(install)) return install;
  return /\b(npm (ci|install)|pnpm install|yarn install)\b/.test(install) ? `${install} --ignore-scripts` : install;
}

/** Heads the steps that sign the merged verdict (docs/ci.md#signed-verdicts-attestations). */
export const ATTEST_MARKER = '# ── attestation: sign the merged verdict (docs/ci.md#signed-verdicts-attestations) ──';

/**
 * The whole workflow file. Shards: edit the matrix list; each job reads the total from the matrix.
 * The merge job is the one check to require: it runs whatever the shards did (a skipped job counts as
 * success for branch protection), `merge` refuses a missing or mixed shard (exit 4), a step fails it when
 * any shard job did not succeed even though the merged verdict did, and only then is the verdict signed.
 * Every job runs the pinned Elenchos; the merge job runs no code of the commit under test at all.
 */
export function renderGithubWorkflow(options: WorkflowOptions): string {
  const pinnedInstall = renderPinnedInstall(options.pin);
  return `# Written by \`elenchos init --ci github\` (docs/ci.md): every task contract verified against the
# pushed commit, split across a matrix of machines, then merged into one result and one exit code.
# Require the check "elenchos result" in branch protection (not the shards'): it fails unless every
# shard ran, reported every task of one commit, and every task is VERIFIED.
name: elenchos verify

on:
  push:
    branches: [main]
  pull_request:

permissions:
  contents: read

${renderPinEnv(options.pin)}
jobs:
${renderVerifyJob(options, pinnedInstall)}

${renderMergeJob(pinnedInstall)}`;
}

/** The matrix job: one shard of the tasks verified on the pinned Elenchos, its output kept only when verify ended by itself. */
function renderVerifyJob(options: WorkflowOptions, pinnedInstall: string): string {
  const keys = SHARDS.map((i) => `      ${shardKeyName(i)}: \${{ steps.verify.outputs.${shardKeyName(i)} }}`).join('\n');
  return `  verify:
    name: verify (shard \${{ matrix.shard }})
    runs-on: ubuntu-latest
    timeout-minutes: 60
    strategy:
      fail-fast: false
      matrix:
        shard: [${SHARDS.join(', ')}]
    # Each shard's public key, published by its verify as it ends: the merge job checks every shard's
    # output against its own job's key. One line per shard of the matrix: edit both together.
    outputs:
${keys}
    steps:
      - uses: actions/checkout@v4
        with:
          # The whole history: on a pull request, --lock-base reads the target branch and the commits since.
          fetch-depth: 0
      - uses: actions/setup-node@v4
        with:
          node-version: 20
${pinnedInstall}
      - name: The sandbox for the commit's code (bubblewrap)
        run: |
          sudo apt-get update -q && sudo apt-get install -y -q bubblewrap
          # Ubuntu 24.04 keeps user namespaces from programs without an AppArmor profile: bubblewrap needs one.
          if [ -e /proc/sys/kernel/apparmor_restrict_unprivileged_userns ]; then sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0; fi
      # For the verifier only (Playwright and what the spec imports). Install scripts are the commit's code:
      # none runs here, outside the sandbox; setup.command runs them in each worktree, inside it.
      - name: Install dependencies (no install scripts)
        run: ${ignoreScripts(options.install)}
${VERIFIER_STEPS[options.verifier]}
      - name: Verify shard \${{ matrix.shard }} of \${{ strategy.job-total }}
        id: verify
${VERIFIER_ENV[options.verifier]}        run: |
          # On a pull request, a test lock changed without its contract is refused (docs/lock.md). The target
          # branch is read from the environment, never spliced into this script.
          lock_base=()
          if [ "$GITHUB_EVENT_NAME" = pull_request ]; then lock_base=(--lock-base "origin/$GITHUB_BASE_REF"); fi
          out=elenchos-shard-\${{ matrix.shard }}.json
          code=0
          # Signed with a key this verify makes and never writes down; its public half goes to the job's outputs.
          # --require sandbox: the commit's app and setup run in bubblewrap (installed above), or no task is VERIFIED.
          elenchos verify --shard \${{ matrix.shard }}/\${{ strategy.job-total }} "\${lock_base[@]}" --json \\
            --require sandbox --sign-shard "$out.sig" --shard-key-to "$GITHUB_OUTPUT" > "$out.partial" || code=$?
          # Kept only when verify ended by itself (exit 0-3): a cancelled or killed one leaves no output, never a cut-off one.
          if [ "$code" -le 3 ]; then mv "$out.partial" "$out"; fi
          exit "$code"
      - name: Keep this shard's result and evidence
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: elenchos-shard-\${{ matrix.shard }}
          path: |
            elenchos-shard-\${{ matrix.shard }}.json
            elenchos-shard-\${{ matrix.shard }}.json.sig
            .elenchos/runs/
          include-hidden-files: true
          # A shard that wrote no output fails here too; merge then names it missing.
          if-no-files-found: error`;
}

/** The one check to require: the shards merged (a verifying join), every shard job succeeded, then the verdict signed. */
function renderMergeJob(pinnedInstall: string): string {
  return `  merge:
    name: elenchos result
    needs: verify
    # Never skipped, whatever the shards did: GitHub counts a skipped required job as passed. This job
    # fails instead when a shard failed or is missing (merge refuses with exit 4, or the step after it).
    if: always()
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
      # No install of the project here: this job holds the signing key and runs no code of the commit.
${pinnedInstall}
      - uses: actions/download-artifact@v4
        with:
          pattern: elenchos-shard-*
          path: shards
      # Each shard's output is taken only as its own job's verify signed it (docs/ci.md#whose-shard-output-merge-takes);
      # the keys come from the jobs' outputs, never from the artifacts, and reach the command through the environment.
      - name: One summary, one JUnit file, one exit code
        env:
          SHARD_KEYS: \${{ toJSON(needs.verify.outputs) }}
        run: elenchos merge shards/*/elenchos-shard-*.json --shard-keys "$SHARD_KEYS" --junit elenchos-junit.xml
      - name: Every shard job succeeded
        if: needs.verify.result != 'success'
        run: |
          echo "::error::a verify shard job ended \${{ needs.verify.result }}; its result cannot count as verified"
          exit 1
      ${ATTEST_MARKER}
      # Signed only after the steps above passed, and only when the repository has the secret
      # ELENCHOS_ATTEST_KEY (\`elenchos attest keygen\`); the key reaches this one step, never the shards. A deploy
      # job checks the result with
      # \`elenchos attest verify elenchos.att.json --key elenchos-attest.pub --commit <sha> --verdict elenchos-verdict.json\`.
      - name: Is there a signing key
        id: attest
        env:
          KEY: \${{ secrets.ELENCHOS_ATTEST_KEY }}
        run: echo "sign=$([ -n "$KEY" ] && echo yes || echo no)" >> "$GITHUB_OUTPUT"
      - name: Sign the merged verdict
        if: steps.attest.outputs.sign == 'yes'
        env:
          ELENCHOS_ATTEST_KEY: \${{ secrets.ELENCHOS_ATTEST_KEY }}
          SHARD_KEYS: \${{ toJSON(needs.verify.outputs) }}
        run: >-
          elenchos merge shards/*/elenchos-shard-*.json --shard-keys "$SHARD_KEYS" --json
          --attest elenchos.att.json --attest-key env:ELENCHOS_ATTEST_KEY > elenchos-verdict.json
      - name: Keep the signed verdict
        if: steps.attest.outputs.sign == 'yes'
        uses: actions/upload-artifact@v4
        with:
          name: elenchos-attestation
          path: |
            elenchos.att.json
            elenchos-verdict.json
          if-no-files-found: error
      - name: Keep the JUnit file
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: elenchos-junit
          path: elenchos-junit.xml
          if-no-files-found: warn
`;
}
