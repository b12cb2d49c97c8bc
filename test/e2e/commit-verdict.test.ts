// A verdict about a commit is about the commit. Each attack leaves HEAD failing (its page lacks the item)
// while the checkout holds a passing page git status does not report: before, `verify` said VERIFIED.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { FORM_PAGE, KANE_CHECK_PAGE, makeProject } from '../helpers/project.js';
import { gitSync } from '../helpers/temp.js';

const PASSING = '<h1>Tasks</h1><form>New task</form><ul><li>Buy milk</li></ul>\n';

describe.concurrent('a verdict about a commit', { timeout: 120_000 }, () => {
  it('setup.copy naming a tracked file is refused: its uncommitted edit would reach the worktree', async () => {
    const { root, env } = makeProject({ config: { verifier: KANE_CHECK_PAGE, setup: { copy: ['page.html'] } }, files: FORM_PAGE });
    writeFileSync(path.join(root, 'page.html'), PASSING); // uncommitted: verify checks HEAD in a worktree
    const verify = await runMain(['verify'], root, env);
    expect(verify.code, verify.stdout + verify.stderr).toBe(3);
    expect(verify.stdout + verify.stderr).toContain(
      'elenchos.config.json: setup.copy[0] names page.html, which git tracks: the worktree has the committed file',
    );
    const check = await runMain(['check'], root, env);
    expect(check.code).toBe(3);
    expect(check.stdout).toContain('setup.copy[0] names page.html, which git tracks');
  });

  it('verify --in-place refuses an edit git status was told not to look at', async () => {
    const { root, env } = makeProject({ config: { verifier: KANE_CHECK_PAGE }, files: FORM_PAGE });
    expect((await runMain(['verify', '--in-place'], root, env)).code).toBe(1); // the control: HEAD fails
    gitSync(root, 'clean', '-fdq'); // Kane's output folders (the run's evidence under .elenchos/ stays)
    writeFileSync(path.join(root, 'page.html'), PASSING);
    gitSync(root, 'update-index', '--skip-worktree', 'page.html');
    expect(gitSync(root, 'status', '--porcelain')).toBe('');
    const verify = await runMain(['verify', '--in-place'], root, env);
    expect(verify.code, verify.stdout + verify.stderr).toBe(3);
    expect(verify.stderr).toContain(
      'verify --in-place: page.html is marked skip-worktree in the index, so git status does not look at it; run git update-index --no-skip-worktree -- page.html',
    );
    expect(verify.stderr.trim().split('\n')).toHaveLength(1);
  });
});
