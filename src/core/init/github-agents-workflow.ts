// The GitHub Actions workflow `elenchos init --ci github --agents` writes: a matrix of shares of the agents'
// work (`run --shard i/n --export`), one join that re-verifies on its own runner, and a publish job that
// pushes each winner to a branch with its attestation. Every job runs the Elenchos pinned at init.
import type { AgentType } from '../../config/config-schema.js';
import { AGENT_INSTALLS } from './agent-install.js';
import type { InitVerifier } from './detect-project.js';
import { VERIFIER_ENV, VERIFIER_STEPS } from './github-workflow.js';
import { renderPinEnv, renderPinnedInstall, type PinnedElenchos } from './pinned-elenchos.js';

export const GITHUB_AGENTS_WORKFLOW = '.github/workflows/elenchos-agents.yml';

export interface AgentsWorkflowOptions {
  verifier: InitVerifier;
  agent: AgentType;
  /** Installs the project's dependencies (its app and verifier run in the share and join jobs). */
  install: string;
  pin: PinnedElenchos;
  /** How many share jobs the matrix has. */
  shares: number;
}

/**
 * The whole file. The join job is the one to require: it runs whatever the shares did (a skipped job counts as
 * passed for branch protection), fails when a share job did not succeed, and `join` exits non-zero unless every
 * task is VERIFIED here and no share was set aside. Only after it succeeded does publish push anything.
 */
export function renderAgentsWorkflow(options: AgentsWorkflowOptions): string {
  const pinnedInstall = renderPinnedInstall(options.pin);
  return `# Written by \`elenchos init --ci github --agents\` (docs/scale.md): agents work on a task (or every task) in a
# matrix of shares, each share exported sealed; one join re-verifies the best candidate of each task on a fresh
# runner (the verifier decides there, not the shares), and publish pushes each winner to a branch with its
# attestation. Start it from the Actions tab (Run workflow) with a task file, or leave the task empty for all.
name: elenchos agents

on:
  workflow_dispatch:
    inputs:
      task:
        description: 'Task contract(s) or a glob (empty: every task of the config)'
        required: false
        default: ''
      best-of:
        description: 'Candidates per task'
        required: true
        default: '2'

permissions:
  contents: read

${renderPinEnv(options.pin)}
jobs:
${renderShareJob(options, pinnedInstall)}

${renderJoinJob(options, pinnedInstall)}

${renderPublishJob(pinnedInstall)}`;
}

/** What a shell step gets from the inputs: through the environment, never spliced into the script. */
const INPUT_ENV = `          TASK: \${{ inputs.task }}
          BEST_OF: \${{ inputs.best-of }}`;

function renderShareJob(options: AgentsWorkflowOptions, pinnedInstall: string): string {
  const agent = AGENT_INSTALLS[options.agent];
  const installAgent = agent.npm
    ? `      - name: Install the agent (${options.agent})
        run: npm install -g ${agent.npm}`
    : `      # agent.type "command": the agent is the project's own command; install what it needs here.`;
  const key = agent.keyEnv ? `          ${agent.keyEnv}: \${{ secrets.${agent.keyEnv} }}\n` : '';
  const shares = Array.from({ length: options.shares }, (_, i) => i + 1).join(', ');
  return `  share:
    name: share \${{ matrix.share }}
    runs-on: ubuntu-latest
    timeout-minutes: 120
    strategy:
      fail-fast: false
      matrix:
        share: [${shares}]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
${pinnedInstall}
      - name: Install dependencies
        run: ${options.install}
${VERIFIER_STEPS[options.verifier]}
${installAgent}
      - name: Run share \${{ matrix.share }} of \${{ strategy.job-total }} and export it
${withEnv(VERIFIER_ENV[options.verifier], `${key}${INPUT_ENV}`)}        run: |
          tasks=(--all)
          if [ -n "$TASK" ]; then tasks=("$TASK"); fi
          out=elenchos-share-\${{ matrix.share }}.tar.gz
          code=0
          elenchos run "\${tasks[@]}" --best-of "$BEST_OF" --shard \${{ matrix.share }}/\${{ strategy.job-total }} --export "$out" || code=$?
          # 0-2: the share ran and exported its runs (its candidates' verdicts are the join's to weigh).
          # Anything else (bad input, an interrupt, a crash) fails this job, and the join job fails with it.
          if [ "$code" -gt 2 ] || [ ! -f "$out" ]; then exit 1; fi
      - name: Keep this share's export
        uses: actions/upload-artifact@v4
        with:
          name: elenchos-share-\${{ matrix.share }}
          path: elenchos-share-\${{ matrix.share }}.tar.gz
          if-no-files-found: error`;
}

function renderJoinJob(options: AgentsWorkflowOptions, pinnedInstall: string): string {
  return `  join:
    name: elenchos join
    needs: share
    # Never skipped, whatever the shares did: GitHub counts a skipped required job as passed.
    if: always()
    runs-on: ubuntu-latest
    timeout-minutes: 60
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
${pinnedInstall}
      # The candidates' apps run here to be verified: the project's dependencies are needed, no agent and no agent key.
      - name: Install dependencies
        run: ${options.install}
${VERIFIER_STEPS[options.verifier]}
      # Outside the checkout: the join (like a run) refuses a working tree with untracked files.
      - uses: actions/download-artifact@v4
        with:
          pattern: elenchos-share-*
          path: \${{ runner.temp }}/shares
      - name: Join the shares and re-verify each task's best candidate here
${VERIFIER_ENV[options.verifier]}        run: elenchos join "$RUNNER_TEMP"/shares/*/elenchos-share-*.tar.gz --json > "$RUNNER_TEMP/elenchos-join.json"
      - name: The verdict beside the joined runs
        if: always()
        run: cp "$RUNNER_TEMP/elenchos-join.json" elenchos-join.json || true
      - name: Every share job succeeded
        if: always() && needs.share.result != 'success'
        run: |
          echo "::error::a share job ended \${{ needs.share.result }}: its candidates were never weighed"
          exit 1
      - name: Keep the joined runs
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: elenchos-joined
          path: |
            elenchos-join.json
            .elenchos/runs/
          include-hidden-files: true
          if-no-files-found: error`;
}

/** Pushes each VERIFIED winner; runs no code of the commit (no install), so the write token meets none of it. */
function renderPublishJob(pinnedInstall: string): string {
  return `  publish:
    name: push the winners
    needs: join
    # Only after the join job succeeded: every share ran, none was set aside, every task VERIFIED here.
    if: needs.join.result == 'success'
    runs-on: ubuntu-latest
    timeout-minutes: 15
    permissions:
      contents: write
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
${pinnedInstall}
      - uses: actions/download-artifact@v4
        with:
          name: elenchos-joined
      - name: Is there a signing key
        id: attest
        env:
          KEY: \${{ secrets.ELENCHOS_ATTEST_KEY }}
        run: echo "sign=$([ -n "$KEY" ] && echo yes || echo no)" >> "$GITHUB_OUTPUT"
      # The verdict is the join's document; apply checks each run's seal and rebuilds exactly the tree the
      # verifier passed before a branch gets it. The attestation goes with the commit as a git note.
      - name: Sign the join's verdict
        if: steps.attest.outputs.sign == 'yes'
        env:
          ELENCHOS_ATTEST_KEY: \${{ secrets.ELENCHOS_ATTEST_KEY }}
        run: elenchos attest sign elenchos-join.json --attest elenchos.att.json --attest-key env:ELENCHOS_ATTEST_KEY
      - name: Push each winner to a branch
        run: |
          git config user.name "elenchos"
          git config user.email "elenchos@users.noreply.github.com"
          for id in $(node -e 'for (const r of JSON.parse(require("fs").readFileSync("elenchos-join.json","utf8")).runs) if (r.state === "VERIFIED") console.log(r.runId)'); do
            branch="elenchos/$id"
            elenchos apply "$id" --branch "$branch"
            if [ -f elenchos.att.json ]; then git notes --ref=elenchos add -f -F elenchos.att.json "$branch"; fi
            git push origin "$branch"
          done
          if [ -f elenchos.att.json ]; then git push origin refs/notes/elenchos; fi
      - name: Keep the attestation
        if: steps.attest.outputs.sign == 'yes'
        uses: actions/upload-artifact@v4
        with:
          name: elenchos-attestation
          path: |
            elenchos.att.json
            elenchos-join.json
          if-no-files-found: error
`;
}

/** One `env:` block of a step from a verifier's block (possibly empty) and more lines. */
function withEnv(verifierEnv: string, more: string): string {
  const head = verifierEnv === '' ? '        env:\n' : verifierEnv;
  return `${head}${more}\n`;
}
