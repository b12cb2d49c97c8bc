// The GitHub Actions workflow `elenchos init --ci github` writes: a matrix of `verify --shard`, then one merge.
import type { InitVerifier } from './detect-project.js';

export const GITHUB_WORKFLOW = '.github/workflows/elenchos.yml';

export interface WorkflowOptions {
  verifier: InitVerifier;
  /** Installs the project's dependencies (elenchos among them). */
  install: string;
}

// Kane is told where Chromium is (KANE_CLI_CHROME_PATH) rather than downloading a browser of its own;
// Playwright installs its Chromium with the system libraries it needs.
const VERIFIER_STEPS: Record<InitVerifier, string> = {
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

const VERIFIER_ENV: Record<InitVerifier, string> = {
  kane: `        env:
          # Kane's credentials, from the repository's secrets (never passed to the app or an agent).
          LT_USERNAME: \${{ secrets.LT_USERNAME }}
          LT_ACCESS_KEY: \${{ secrets.LT_ACCESS_KEY }}
          KANE_CLI_CHROME_PATH: \${{ steps.chromium.outputs.chrome-path }}
`,
  playwright: '',
};

/** Heads the steps that sign the merged verdict (docs/ci.md#signed-verdicts-attestations). */
export const ATTEST_MARKER = '# ── attestation: sign the merged verdict (docs/ci.md#signed-verdicts-attestations) ──';

/**
 * The whole workflow file. Shards: edit the matrix list; each job reads the total from the matrix.
 * The merge job is the one check to require: it runs whatever the shards did (a skipped job counts as
 * success for branch protection), `merge` refuses a missing or mixed shard (exit 4), and a last step
 * fails it when any shard job did not succeed even though the merged verdict did.
 */
export function renderGithubWorkflow(options: WorkflowOptions): string {
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

jobs:
  verify:
    name: verify (shard \${{ matrix.shard }})
    runs-on: ubuntu-latest
    timeout-minutes: 60
    strategy:
      fail-fast: false
      matrix:
        shard: [1, 2, 3]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
      - name: Install dependencies
        run: ${options.install}
${VERIFIER_STEPS[options.verifier]}
      - name: Verify shard \${{ matrix.shard }} of \${{ strategy.job-total }}
${VERIFIER_ENV[options.verifier]}        run: npx elenchos verify --shard \${{ matrix.shard }}/\${{ strategy.job-total }} --json > elenchos-shard-\${{ matrix.shard }}.json
      - name: Keep this shard's result and evidence
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: elenchos-shard-\${{ matrix.shard }}
          path: |
            elenchos-shard-\${{ matrix.shard }}.json
            .elenchos/runs/
          include-hidden-files: true
          # A shard that wrote no output fails here too; merge then names it missing.
          if-no-files-found: error

  merge:
    name: elenchos result
    needs: verify
    # Never skipped, whatever the shards did: GitHub counts a skipped required job as passed. This job
    # fails instead when a shard failed or is missing (merge refuses with exit 4, or the last step).
    if: always()
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
      - name: Install dependencies
        run: ${options.install}
      - uses: actions/download-artifact@v4
        with:
          pattern: elenchos-shard-*
          path: shards
      - name: One summary, one JUnit file, one exit code
        run: npx elenchos merge shards/*/elenchos-shard-*.json --junit elenchos-junit.xml
      ${ATTEST_MARKER}
      # Signed only when the repository has the secret ELENCHOS_ATTEST_KEY (\`elenchos attest keygen\`); the
      # key reaches this one step, never the install or the shards. A deploy job checks the result with
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
        run: npx elenchos merge shards/*/elenchos-shard-*.json --json --attest elenchos.att.json --attest-key env:ELENCHOS_ATTEST_KEY > elenchos-verdict.json
      - name: Keep the signed verdict
        if: steps.attest.outputs.sign == 'yes'
        uses: actions/upload-artifact@v4
        with:
          name: elenchos-attestation
          path: |
            elenchos.att.json
            elenchos-verdict.json
          if-no-files-found: error
      - name: Every shard job succeeded
        if: needs.verify.result != 'success'
        run: |
          echo "::error::a verify shard job ended \${{ needs.verify.result }}; its result cannot count as verified"
          exit 1
      - name: Keep the JUnit file
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: elenchos-junit
          path: elenchos-junit.xml
          if-no-files-found: warn
`;
}
