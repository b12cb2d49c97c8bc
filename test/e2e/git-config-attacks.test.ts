// Attacks through git itself: every check of ours asks git, and a command agent (same user, no sandbox)
// can write what git obeys — the common .git/config, .git/info/, .git/hooks/, replace refs, the index.
// Each agent below does NOT do the work (or hides it); each test fails if its defence is removed.
// @module-tag slow
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { CONCURRENT_TIMEOUT, leftoversOf } from '../helpers/leftovers.js';
import { allRuns } from '../helpers/live-cli.js';
import { makeProject } from '../helpers/project.js';
import { FORGE_INDEX } from '../helpers/forge-index.js';
import { gitSync, tempDir } from '../helpers/temp.js';

const GOOD = '<h1>Tasks</h1><form>New task</form><ul><li>Buy milk</li></ul>\n';

/** A project whose command agent is `script` (sh), run in the worktree; `dir` is a scratch folder outside the repository. */
function attackProject(watch: (root: string) => string, script: string, config: Record<string, unknown> = {}) {
  const dir = tempDir('elenchos-git-attack-');
  writeFileSync(path.join(dir, 'good.html'), GOOD);
  writeFileSync(path.join(dir, 'forge.js'), FORGE_INDEX);
  const agent = path.join(dir, 'agent.sh');
  // The prompt arrives on stdin: read it so the writer never meets a closed pipe.
  writeFileSync(agent, `set -eu\ncat >/dev/null\nD=${JSON.stringify(dir)}\n${script}\n`);
  const project = makeProject({
    config: {
      agent: { type: 'command', command: '/bin/sh', args: [agent], timeoutSeconds: 30 },
      maxRepairAttempts: 0,
      ...config,
    },
  });
  watch(project.root);
  return { project, dir };
}

function runs(root: string) {
  return allRuns(root).sort((a, b) => a.record.startedAt.localeCompare(b.record.startedAt));
}

const gitConfig = (root: string, key: string) => {
  try {
    return gitSync(root, 'config', '--get', key).trim();
  } catch {
    return null;
  }
};

describe.concurrent('git settings the agent plants', { timeout: CONCURRENT_TIMEOUT }, () => {
  it('core.fsmonitor: never run by our git calls after the agent, and put back in the common config', async (ctx) => {
    const watch = leftoversOf(ctx);
    const { project, dir } = attackProject(
      watch,
      `
cat > "$D/fsmonitor.sh" <<EOF
#!/bin/sh
echo "ran in \\$PWD" >> "$D/fsmonitor-ran"
exit 1
EOF
chmod +x "$D/fsmonitor.sh"
git config core.fsmonitor "$D/fsmonitor.sh"
`,
    );
    const result = await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    const [only] = runs(project.root);
    // Without the pins, our own ls-files / diff ran the agent's command after its processes were swept.
    expect(existsSync(path.join(dir, 'fsmonitor-ran')), 'the agent-planted fsmonitor ran').toBe(false);
    expect(result.code, result.stdout + result.stderr).toBe(2);
    expect(only!.record).toMatchObject({ state: 'ERROR', reason: 'UNSTABLE_WORKSPACE' });
    expect(only!.record.message).toContain('.git/config changed');
    expect(gitConfig(project.root, 'core.fsmonitor')).toBeNull();
  }, 120_000);

  it('a post-checkout hook cannot plant the work in a later run: that run is not VERIFIED', async (ctx) => {
    const watch = leftoversOf(ctx);
    // Run 1 installs a hook that writes the finished page into whatever worktree git checks out next.
    const { project, dir } = attackProject(
      watch,
      `
hooks="$(git rev-parse --path-format=absolute --git-common-dir)/hooks"
mkdir -p "$hooks"
cat > "$hooks/post-checkout" <<EOF
#!/bin/sh
cp "$D/good.html" page.html
echo ran >> "$D/hook-ran"
EOF
chmod +x "$hooks/post-checkout"
`,
    );
    await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    expect(runs(project.root)[0]!.record).toMatchObject({ state: 'ERROR', reason: 'UNSTABLE_WORKSPACE' });
    expect(runs(project.root)[0]!.record.message).toContain('.git/hooks/post-checkout added');
    // Run 2: an agent that does nothing, in a fresh worktree (`git worktree add` checks out).
    writeFileSync(path.join(dir, 'agent.sh'), 'cat >/dev/null\n');
    // The tampering put the task on hold: the user reads the evidence and lets agents run it again.
    expect((await runMain(['ack', 'tasks/add-task.json'], project.root, project.env)).code).toBe(0);
    const second = await runMain(['run', 'tasks/add-task.json', '--fresh'], project.root, project.env);
    expect(runs(project.root), second.stdout + second.stderr).toHaveLength(2);
    expect(existsSync(path.join(dir, 'hook-ran')), 'the agent-planted hook ran').toBe(false);
    expect(runs(project.root)[1]!.record.state, second.stdout).toBe('FAILED');
    expect(existsSync(path.join(project.root, '.git/hooks/post-checkout'))).toBe(false);
  }, 180_000);

  it('a hook planted while git is told to ignore hooks still counts, and our own worktree add never runs it', async (ctx) => {
    const watch = leftoversOf(ctx);
    // The pin alone: the hook exists before the run (the user's own, or an earlier agent's); the run's
    // `git worktree add` must not run it, and a no-op agent must not be VERIFIED by it.
    const { project, dir } = attackProject(watch, 'true');
    const hook = path.join(project.root, '.git/hooks/post-checkout');
    writeFileSync(
      hook,
      `#!/bin/sh\ncp ${JSON.stringify(path.join(dir, 'good.html'))} page.html\necho ran >> ${JSON.stringify(path.join(dir, 'hook-ran'))}\n`,
    );
    chmodSync(hook, 0o755);
    const result = await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    expect(existsSync(path.join(dir, 'hook-ran')), 'our git worktree add ran a hook').toBe(false);
    expect(runs(project.root)[0]!.record.state, result.stdout).toBe('FAILED');
  }, 120_000);

  it('a smudge filter that puts the work in while git status reports nothing changed', async (ctx) => {
    const watch = leftoversOf(ctx);
    const { project } = attackProject(
      watch,
      `
cp page.html "$D/orig.html"
git config filter.hide.smudge "cat $D/good.html"
git config filter.hide.clean "cat $D/orig.html"
echo 'page.html filter=hide' >> "$(git rev-parse --git-common-dir)/info/attributes"
rm page.html
git checkout -- page.html
test -z "$(git status --porcelain)"
`,
    );
    const result = await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    const [only] = runs(project.root);
    // On main: VERIFIED with nothing changed — the verifier saw a page no diff holds.
    expect(only!.record.state, result.stdout).toBe('ERROR');
    expect(only!.record.reason).toBe('UNSTABLE_WORKSPACE');
    expect(only!.record.message).toContain('.git/config changed');
    expect(only!.record.message).toContain('.git/info/attributes added');
    expect(gitConfig(project.root, 'filter.hide.smudge')).toBeNull();
    expect(existsSync(path.join(project.root, '.git/info/attributes'))).toBe(false);
  }, 120_000);

  it('a replace ref that makes the committed page read as the finished one, so the stored patch is empty', async (ctx) => {
    const watch = leftoversOf(ctx);
    // The work is done, and HEAD's page.html is replaced by the finished page: `git diff` then shows no
    // change, the stored patch is empty and `elenchos apply` would bring nothing of what was verified.
    const { project } = attackProject(
      watch,
      `
cp "$D/good.html" page.html
git replace "$(git rev-parse HEAD:page.html)" "$(git hash-object -w page.html)"
test -z "$(git diff HEAD)"
`,
    );
    const result = await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    const [only] = runs(project.root);
    expect(only!.record.state, result.stdout).toBe('ERROR');
    expect(only!.record.reason).toBe('UNSTABLE_WORKSPACE');
    expect(only!.record.message).toMatch(/\.git\/refs\/replace\/[0-9a-f]{40} added/);
    expect(gitSync(project.root, 'replace', '-l').trim()).toBe('');
    // Our diff reads the objects as they are (GIT_NO_REPLACE_OBJECTS): the change is in the evidence.
    expect(readFileSync(path.join(only!.dir, 'attempts/01/workspace/diff.patch'), 'utf8')).toContain(
      '+<h1>Tasks</h1><form>New task</form>',
    );
  }, 120_000);

  it('a file hidden from the evidence through .git/info/exclude', async (ctx) => {
    const watch = leftoversOf(ctx);
    // The work is done, and one more served file is made "ignored": never compared, watched or stored.
    const { project } = attackProject(
      watch,
      `
cp "$D/good.html" page.html
echo 'alert(1)' > extra.js
echo extra.js >> "$(git rev-parse --git-common-dir)/info/exclude"
`,
    );
    const result = await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    const [only] = runs(project.root);
    expect(only!.record.state, result.stdout).toBe('ERROR');
    expect(only!.record.message).toContain('.git/info/exclude changed');
    expect(readFileSync(path.join(project.root, '.git/info/exclude'), 'utf8')).not.toContain('extra.js');
  }, 120_000);

  it('assume-unchanged on an edited tracked file (regression: already caught by the index flag check)', async (ctx) => {
    const watch = leftoversOf(ctx);
    const { project } = attackProject(
      watch,
      `
cp "$D/good.html" page.html
git update-index --assume-unchanged page.html
`,
    );
    await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    const [only] = runs(project.root);
    expect(only!.record).toMatchObject({ state: 'ERROR', reason: 'UNSTABLE_WORKSPACE' });
    expect(only!.record.message).toContain('files hidden from git status (assume-unchanged / skip-worktree): page.html');
  }, 120_000);
});

describe.concurrent('the index the agent leaves', { timeout: CONCURRENT_TIMEOUT }, () => {
  it('a forged index entry (committed blob, stat data of the edited file) that hides an edit from git status', async (ctx) => {
    const watch = leftoversOf(ctx);
    // No setting changes: the agent edits page.html, backdates its mtime (out of git's racy window),
    // stages it, then writes HEAD's blob id back into the entry, keeping the new file's stat data.
    const { project } = attackProject(
      watch,
      `
cp "$D/good.html" page.html
touch -d '2001-01-01' page.html
git add page.html
node "$D/forge.js"
grep -q 'Buy milk' page.html
test -z "$(git status --porcelain)"
`,
    );
    const result = await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    const [only] = runs(project.root);
    // On main: VERIFIED, "0 changed path(s)", an empty diff.patch — the verified page is nowhere in the evidence.
    expect(only!.record.state, result.stdout).toBe('ERROR');
    expect(only!.record.reason).toBe('UNSTABLE_WORKSPACE');
    expect(only!.record.message).toContain('page.html');
  }, 120_000);
});

describe.concurrent('an idle warm worktree', { timeout: CONCURRENT_TIMEOUT }, () => {
  it('an agent that plants the work in an idle pool slot and forges its trusted index does not make a later run VERIFIED', async (ctx) => {
    const watch = leftoversOf(ctx);
    const { project, dir } = attackProject(watch, 'cat >/dev/null');
    const noop = readFileSync(path.join(dir, 'agent.sh'), 'utf8');
    // Run 1 does nothing and leaves its worktree idle in .elenchos/pool/0.
    await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    expect(existsSync(path.join(project.root, '.elenchos/pool/0.index'))).toBe(true);
    // Run 2 (--fresh: its own worktree) reaches the idle slot: the finished page, and the slot's trusted
    // index rewritten so that the page's entry names the committed blob with the new file's stat data.
    writeFileSync(
      path.join(dir, 'agent.sh'),
      `${noop}
slot="$(git rev-parse --path-format=absolute --show-toplevel)/../../pool/0"
cd "$slot"
cp "$D/good.html" page.html
touch -d '2001-01-01' page.html
export GIT_INDEX_FILE="$slot.index"
git add page.html
INDEX="$slot.index" node "$D/forge.js"
`,
    );
    await runMain(['run', 'tasks/add-task.json', '--fresh'], project.root, project.env);
    // Run 3: an agent that does nothing, in the warm worktree.
    writeFileSync(path.join(dir, 'agent.sh'), noop);
    const third = await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    const last = runs(project.root).at(-1)!;
    expect(runs(project.root)).toHaveLength(3);
    expect(last.record.state, third.stdout).toBe('FAILED');
  }, 240_000);
});
