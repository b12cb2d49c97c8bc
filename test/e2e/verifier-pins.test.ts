// A command verifier's whole input set is pinned: the modules its interpreter loads from the repository
// are locked like its test, and bytecode in the worktree never runs in it. Each case is an attack that
// turned a failing app VERIFIED before (the page lacks "Buy milk"; only the verifier's helpers changed).
// @module-tag slow
import { chmodSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { giveTo, spawnCliAs, WHO } from '../helpers/as-user.js';
import { runMain } from '../helpers/cli.js';
import { FIXTURES, GIT_IDENTITY, TEST_MD, onlyRun } from '../helpers/project.js';
import { gitSync, taskJson, tempDir, tempRepo, writeFiles } from '../helpers/temp.js';

// The protocol (docs/command-verifier.md) spoken by a Python script that asks `checks.page_has` whether each
// "quoted" text of a step is on the page.
const VERIFY_PY = `#!/usr/bin/env python3
import json, os, re, sys, urllib.request
from checks import page_has

def out(event):
    print(json.dumps(event), flush=True)

steps = []
for line in open(sys.argv[-1], encoding='utf8').read().split('\\n'):
    if line.startswith('## '):
        steps.append({'title': line[3:].strip(), 'body': []})
    elif steps:
        steps[-1]['body'].append(line)
page = urllib.request.urlopen(os.environ['ELENCHOS_URL']).read().decode()
failed = False
for n, step in enumerate(steps, 1):
    out({'type': 'step_start', 'step': n, 'title': step['title']})
    missing = [t for t in re.findall(r'"([^"]+)"', '\\n'.join(step['body'])) if not page_has(page, t)]
    if missing:
        failed = True
        out({'type': 'step_end', 'step': n, 'title': step['title'], 'status': 'failed', 'failure': 'product', 'message': 'missing ' + missing[0]})
    else:
        out({'type': 'step_end', 'step': n, 'title': step['title'], 'status': 'passed'})
out({'type': 'done', 'status': 'failed' if failed else 'passed'})
`;
const CHECKS_PY = 'def page_has(page, text):\n    return text in page\n';
const LENIENT_PY = 'def page_has(page, text):\n    return True\n';

// Writes tests/__pycache__/checks.<tag>.pyc compiled from the lenient source, unchecked: Python would
// never compare it with checks.py, so it runs whatever checks.py says.
const PLANT_PYC = `import importlib.util, os, py_compile, tempfile
target = importlib.util.cache_from_source('tests/checks.py')
os.makedirs(os.path.dirname(target), exist_ok=True)
with tempfile.NamedTemporaryFile('w', suffix='.py', delete=False) as f:
    f.write(${JSON.stringify(LENIENT_PY)})
py_compile.compile(f.name, cfile=target, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
os.unlink(f.name)
`;

function pythonProject(config: Record<string, unknown> = {}, files: Record<string, string> = {}) {
  const root = tempRepo({
    '.gitignore': '__pycache__/\n',
    'app.js': readFileSync(path.join(FIXTURES, 'apps/tiny-app.js'), 'utf8'),
    'page.html': '<h1>Tasks</h1><form>New task</form><ul></ul>\n',
    'tasks/add-task.json': taskJson({ verification: { testFile: 'tests/add.md' } }),
    'tests/add.md': TEST_MD.replace('Open {{start_url}} and verify the page shows "New task".', 'Verify the page shows "New task".'),
    'tests/verify.py': VERIFY_PY,
    'tests/checks.py': CHECKS_PY,
    'plant.py': PLANT_PYC,
    'elenchos.config.json': JSON.stringify({
      agent: { type: 'command', command: 'sh', args: ['-c', 'true'], timeoutSeconds: 30 },
      app: { command: 'node app.js --port {port}', readyTimeoutSeconds: 10 },
      verifier: { type: 'command', command: './tests/verify.py', timeoutSeconds: 30 },
      maxRepairAttempts: 0,
      maxVerifierRetries: 0,
      ...config,
    }),
    ...files,
  });
  chmodSync(path.join(root, 'tests/verify.py'), 0o755);
  gitSync(root, 'add', '-A');
  gitSync(root, 'commit', '-q', '-m', 'executable verifier');
  return root;
}

const agent = (script: string) => ({ agent: { type: 'command', command: 'sh', args: ['-c', script], timeoutSeconds: 30 } });

describe('a command verifier’s modules and bytecode', { timeout: 120_000, concurrent: true }, () => {
  it('the honest verifier fails the page that lacks the item (the control)', async () => {
    const root = pythonProject();
    const verify = await runMain(['verify', 'tasks/add-task.json'], root);
    expect(verify.code, verify.stdout + verify.stderr).toBe(1);
    expect(onlyRun(root).record).toMatchObject({ state: 'FAILED', reason: 'PRODUCT_FAILURE' });
  });

  it('a module named at run time is refused by check naming its line, unless verifier.inputs lists what it may load', async () => {
    const dynamic = {
      'tests/verify.py': VERIFY_PY.replace(
        'from checks import page_has',
        "import importlib, os\npage_has = importlib.import_module(os.environ.get('CHECKS', 'checks')).page_has",
      ),
    };
    const refused = pythonProject({}, dynamic);
    const check = await runMain(['check'], refused);
    expect(check.code).toBe(3);
    expect(check.stdout).toContain(
      'tests/verify.py:4: `import_module(os.environ.get("CHECKS", "checks"))` names what it loads at run time, so it cannot be pinned; write it as a literal path or module name, or list the files it may load in verifier.inputs',
    );
    const config = { verifier: { type: 'command', command: './tests/verify.py', timeoutSeconds: 30, inputs: ['tests/*.py'] } };
    const listed = pythonProject(config, dynamic);
    expect(await runMain(['check'], listed)).toMatchObject({ code: 0 });
    expect((await runMain(['lock'], listed)).code).toBe(0);
    const lock = JSON.parse(readFileSync(path.join(listed, 'tasks/add-task.lock.json'), 'utf8')) as { inputs: Record<string, string> };
    expect(Object.keys(lock.inputs)).toEqual(['tests/checks.py', 'tests/verify.py']);
  });

  it('a commit that changes only a verifier module fails verify against the lock', async () => {
    const root = pythonProject();
    expect((await runMain(['lock', 'tasks/add-task.json'], root)).code).toBe(0);
    gitSync(root, 'add', '-A');
    gitSync(root, 'commit', '-q', '-m', 'lock');
    writeFiles(root, { 'tests/checks.py': LENIENT_PY });
    gitSync(root, 'commit', '-q', '-am', 'agent: make it pass');
    const verify = await runMain(['verify', 'tasks/add-task.json'], root);
    expect(verify.code, verify.stdout + verify.stderr).toBe(3);
    expect(verify.stdout + verify.stderr).toContain('tests/checks.py changed: the verifier reads it with tests/add.md');
  });
});

// The guards are the same whoever starts Elenchos: CI runs as root (who can read and write anything, so a
// guard that trusts permissions would differ), users mostly do not.
describe.each(WHO)('a command verifier’s modules and bytecode, as %s', { timeout: 120_000, concurrent: true }, (who) => {
  /** `elenchos args` as `who` in `root`, which is handed over with a HOME of its own. */
  function cliAs(args: string[], root: string) {
    const home = tempDir('elenchos-home-');
    giveTo(who, root, home);
    return spawnCliAs(who, args, root, { HOME: home, ...GIT_IDENTITY });
  }

  it('an agent that edits only a module the verifier imports ends the run CONTRACT_CHANGED', async () => {
    const root = pythonProject(agent(`printf '${LENIENT_PY.replaceAll('\n', '\\n')}' > tests/checks.py`));
    const run = await cliAs(['run', 'tasks/add-task.json'], root);
    expect(run.code, run.stdout + run.stderr).toBe(2);
    const { record } = onlyRun(root);
    expect(record).toMatchObject({ state: 'ERROR', reason: 'CONTRACT_CHANGED' });
    expect(record.message).toContain('tests/checks.py changed in the worktree');
  });

  it('bytecode an agent plants beside the module never runs in the verifier', async () => {
    const root = pythonProject(agent('python3 plant.py && ls tests/__pycache__/'));
    const run = await cliAs(['run', 'tasks/add-task.json'], root);
    expect(run.stdout).toMatch(/checks\.cpython-\d+\.pyc/); // planted, and ignored by git
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(onlyRun(root).record).toMatchObject({ state: 'FAILED', reason: 'PRODUCT_FAILURE' });
  });

  // A repository that does not ignore __pycache__/: the built-in app.writes entry covers it (Django writes
  // there), but never the bytecode of a module the verifier imports.
  it('bytecode the app writes for a verifier module during the window is a write, not the app’s data', async () => {
    const app = { command: 'python3 plant.py && exec node app.js --port {port}', readyTimeoutSeconds: 10 };
    const root = pythonProject({ app }, { '.gitignore': '' });
    const verify = await cliAs(['verify', 'tasks/add-task.json'], root);
    expect(verify.code, verify.stdout + verify.stderr).toBe(2);
    const { record } = onlyRun(root);
    expect(record).toMatchObject({ state: 'ERROR', reason: 'UNSTABLE_WORKSPACE' });
    expect(record.message).toMatch(/tests\/__pycache__\/checks\.cpython-\d+\.pyc/);
  });

  // A module its owner can no longer read: root reads it anyway, an ordinary user's Elenchos cannot. Either
  // way the pin must not take an unreadable file for an unchanged one.
  it('a module the agent rewrites and makes unreadable (chmod 000) is never taken for unchanged', async () => {
    const root = pythonProject(agent(`printf '${LENIENT_PY.replaceAll('\n', '\\n')}' > tests/checks.py && chmod 000 tests/checks.py`));
    const run = await cliAs(['run', 'tasks/add-task.json'], root);
    expect(run.code, run.stdout + run.stderr).toBe(2);
    const { record } = onlyRun(root);
    expect(record).toMatchObject({ state: 'ERROR', reason: 'CONTRACT_CHANGED' });
    expect(record.message).toContain('tests/checks.py');
  });
});
