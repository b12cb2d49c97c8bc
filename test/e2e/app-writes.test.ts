// End to end: what the verifier and the app write by design is theirs, not the agent's; an
// undeclared write still ends the attempt, says how to declare it, and does not flag the task at once.
// @module-tag slow
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { CONCURRENT_TIMEOUT, leftoversOf } from '../helpers/leftovers.js';
import { makeProject, onlyRun, TEST_MD } from '../helpers/project.js';
import { gitSync, tempDir } from '../helpers/temp.js';

// A real HTTP app that keeps data in the repository: every request counts itself in data/db.json (tracked),
// and the page shows page.html plus db.json's `extra`. APP_WRITE_MODE adds one more write at start:
// `vite` writes and removes a Vite 5 config timestamp file beside vite.config.js, `store` puts a file into
// Kane's cwd store (.testmuai/), which is not Kane's output.
const APP = `import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
const port = Number(process.argv[process.argv.indexOf('--port') + 1]);
const mode = process.env.APP_WRITE_MODE ?? '';
if (mode === 'vite') {
  const stamp = 'vite.config.js.timestamp-' + Date.now() + '-4e1b2c3d9a.mjs';
  writeFileSync(stamp, readFileSync('vite.config.js'));
  rmSync(stamp);
}
if (mode === 'store') {
  mkdirSync('.testmuai', { recursive: true });
  writeFileSync('.testmuai/notes.md', 'written by the app\\n');
}
http.createServer((request, response) => {
  const db = JSON.parse(readFileSync('data/db.json', 'utf8'));
  db.hits += 1;
  writeFileSync('data/db.json', JSON.stringify(db) + '\\n');
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  response.end(readFileSync('page.html', 'utf8') + (db.extra ?? ''));
}).listen(port, '127.0.0.1', () => console.log('data app listening on ' + port));
`;
const BASE_DB = '{"hits":0}\n';

function project(watch: (root: string) => string, options: { writes?: string[]; mode?: string; agent?: string[] } = {}) {
  const p = makeProject({
    files: { 'app.js': APP, 'data/db.json': BASE_DB, 'vite.config.js': 'export default {};\n' },
    config: {
      app: {
        command: 'node app.js --port {port}',
        readyTimeoutSeconds: 10,
        writes: options.writes ?? [],
        env: { APP_WRITE_MODE: options.mode ?? '' },
      },
      ...(options.agent ? { agent: { type: 'command', command: process.execPath, args: options.agent, timeoutSeconds: 30 } } : {}),
    },
  });
  watch(p.root);
  return p;
}

const needsHuman = async (root: string) => JSON.parse((await runMain(['runs', '--json'], root)).stdout).needsHuman;

describe.concurrent('writes of the verifier and the app', { timeout: CONCURRENT_TIMEOUT }, () => {
  it("a Kane run in a repository with no .testmuai/ yet: Kane's cwd store is Kane's, VERIFIED, nothing flagged", async (ctx) => {
    const watch = leftoversOf(ctx);
    const p = makeProject({ agent: 'implement' });
    watch(p.root);
    expect(existsSync(path.join(p.root, '.testmuai'))).toBe(false);
    const result = await runMain(['run', 'tasks/add-task.json'], p.root, p.env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const { dir, record } = onlyRun(p.root);
    expect(record).toMatchObject({ state: 'VERIFIED', reason: null });
    // The fake wrote what the real one writes, the cwd store included; none of it is the agent's change.
    expect(existsSync(path.join(dir, 'attempts/01/verifier/kane'))).toBe(true);
    expect(readFileSync(path.join(dir, 'attempts/01/workspace/diff.patch'), 'utf8')).not.toContain('.testmuai');
    expect(execFileSync('tar', ['tzf', path.join(dir, 'attempts/01/workspace/untracked.tar.gz')], { encoding: 'utf8' })).toBe('');
    expect(await needsHuman(p.root)).toEqual([]);
    expect(gitSync(p.root, 'status', '--porcelain')).toBe('');
  }, 120_000);

  it('a Kane test that @imports a helper, in a fresh repository: every folder Kane writes is its own, VERIFIED, nothing flagged', async (ctx) => {
    const watch = leftoversOf(ctx);
    // Step 1 runs the helper; Kane writes tests/helpers/helper-output-open-form-add-task-1/ beside it
    // (kane-cli.md §8.1), besides output-add-task/, the cwd store and the session folder under HOME.
    const IMPORTING = TEST_MD.replace(/(## Step 1 — the form is there @verifies AC-001\n\n)[^\n]+\n/, '$1@import ./helpers/open-form.md\n');
    const HELPER = '# Open the form\n\n## Open the page\n\nOpen {{start_url}} and verify the page shows "New task".\n';
    const p = makeProject({ agent: 'implement', files: { 'tests/add-task_test.md': IMPORTING, 'tests/helpers/open-form.md': HELPER } });
    watch(p.root);
    expect(IMPORTING).toContain('@import ./helpers/open-form.md');
    for (const absent of ['.testmuai', 'tests/output-add-task', 'tests/helpers/helper-output-open-form-add-task-1'])
      expect(existsSync(path.join(p.root, absent)), absent).toBe(false);
    const result = await runMain(['run', 'tasks/add-task.json'], p.root, p.env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const { dir, record } = onlyRun(p.root);
    expect(record).toMatchObject({ state: 'VERIFIED', reason: null });
    expect(record.attempts[0].criteria.map((c: { status: string }) => c.status)).toEqual(['PASS', 'PASS']);
    // The helper really ran as step 1's sub-run, and its call site got its folder (kept as evidence, not as a change).
    const events = readFileSync(path.join(dir, 'attempts/01/verifier/events.ndjson'), 'utf8');
    expect(events).toContain('"ref":"./helpers/open-form.md"');
    expect(readFileSync(path.join(dir, 'attempts/01/verifier/kane/output-add-task/Result.md'), 'utf8')).toContain(
      'via @import ./helpers/open-form.md — 1 inlined steps',
    );
    const diff = readFileSync(path.join(dir, 'attempts/01/workspace/diff.patch'), 'utf8');
    for (const theirs of ['.testmuai', 'output-add-task', 'helper-output']) expect(diff).not.toContain(theirs);
    expect(execFileSync('tar', ['tzf', path.join(dir, 'attempts/01/workspace/untracked.tar.gz')], { encoding: 'utf8' })).toBe('');
    expect(await needsHuman(p.root)).toEqual([]);
    expect(gitSync(p.root, 'status', '--porcelain')).toBe('');
    // Kane's pointer under HOME is gone once it exited (kane-cli.md §2); its session folder stays there.
    expect(readdirSync(path.join(p.home, '.testmuai/kaneai/sessions/active'))).toEqual([]);
  }, 120_000);

  it('an undeclared data file written by the app: UNSTABLE_WORKSPACE naming the path and app.writes, not NEEDS_HUMAN', async (ctx) => {
    const watch = leftoversOf(ctx);
    const p = project(watch);
    const result = await runMain(['run', 'tasks/add-task.json'], p.root, p.env);
    expect(result.code).toBe(2);
    const { record } = onlyRun(p.root);
    expect(record).toMatchObject({ state: 'ERROR', reason: 'UNSTABLE_WORKSPACE', tampering: false });
    expect(record.message).toContain('the workspace was written while the verifier looked: data/db.json');
    expect(record.message).toContain('declare it in app.writes in elenchos.config.json');
    expect(result.stdout + result.stderr).toContain('app.writes');
    expect(await needsHuman(p.root)).toEqual([]);
    // The next run is not refused: the user can declare the file and go on.
    expect((await runMain(['run', 'tasks/add-task.json'], p.root, p.env)).stderr).not.toContain('NEEDS_HUMAN');
  }, 120_000);

  it('declared in app.writes: VERIFIED, and the data file is in no stored change, apply leaves it as committed', async (ctx) => {
    const watch = leftoversOf(ctx);
    const p = project(watch, { writes: ['data/db.json'] });
    const result = await runMain(['run', 'tasks/add-task.json'], p.root, p.env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const { dir, record } = onlyRun(p.root);
    expect(record.state).toBe('VERIFIED');
    const diff = readFileSync(path.join(dir, 'attempts/01/workspace/diff.patch'), 'utf8');
    expect(diff).toContain('page.html');
    expect(diff).not.toContain('db.json');
    const applied = await runMain(['apply', 'latest'], p.root, p.env);
    expect(applied.code).toBe(0);
    expect(readFileSync(path.join(p.root, 'data/db.json'), 'utf8')).toBe(BASE_DB);
    expect(readFileSync(path.join(p.root, 'page.html'), 'utf8')).toContain('Buy milk');
  }, 120_000);

  it('an agent that does the work in a declared data file gets no credit: it is put back before the app starts', async (ctx) => {
    const watch = leftoversOf(ctx);
    // The agent "implements" the page by editing what the app reads from its data file.
    const agent = path.join(tempDir('elenchos-agent-'), 'data-agent.js');
    writeFileSync(
      agent,
      `import { readFileSync, writeFileSync } from 'node:fs';
readFileSync(0);
writeFileSync('data/db.json', JSON.stringify({ hits: 0, extra: '<form>New task</form><ul><li>Buy milk</li></ul>' }) + '\\n');
console.log('implemented the page through the data file');
`,
    );
    const p = project(watch, { writes: ['data/db.json'], agent: [agent] });
    const result = await runMain(['run', 'tasks/add-task.json'], p.root, p.env);
    expect(result.code).toBe(1);
    const { record } = onlyRun(p.root);
    expect(record.state).toBe('FAILED');
    // The page is the committed one: the first step fails (the second is skipped after it); the repair,
    // which changes the data file again, changes nothing that counts.
    expect(record.attempts[0].criteria[0]).toMatchObject({ id: 'AC-001', status: 'FAIL' });
    expect(record.reason).toBe('REPAIR_UNCHANGED');
  }, 120_000);

  it("Vite's config timestamp file, written and removed as the app starts: VERIFIED", async (ctx) => {
    const watch = leftoversOf(ctx);
    const p = project(watch, { writes: ['data/db.json'], mode: 'vite' });
    const result = await runMain(['run', 'tasks/add-task.json'], p.root, p.env);
    expect(result.stderr).toBe('');
    expect(onlyRun(p.root).record.state).toBe('VERIFIED');
  }, 120_000);

  it("a file the app puts into Kane's store beside Kane's output is the app's write: UNSTABLE_WORKSPACE", async (ctx) => {
    const watch = leftoversOf(ctx);
    const p = project(watch, { writes: ['data/db.json'], mode: 'store' });
    expect((await runMain(['run', 'tasks/add-task.json'], p.root, p.env)).code).toBe(2);
    const { record } = onlyRun(p.root);
    expect(record).toMatchObject({ state: 'ERROR', reason: 'UNSTABLE_WORKSPACE' });
    expect(record.message).toContain('.testmuai/notes.md');
  }, 120_000);

  it('app.writes may not cover a locked file: refused before any run (exit 3)', async (ctx) => {
    const watch = leftoversOf(ctx);
    const p = project(watch, { writes: ['tests/**'] });
    const result = await runMain(['run', 'tasks/add-task.json'], p.root, p.env);
    expect(result.code).toBe(3);
    expect(result.stderr.trim()).toBe(
      'elenchos: elenchos.config.json: app.writes "tests/**" covers tests/add-task_test.md, which the run locks; declare only what the app writes (e.g. "data/db.json")',
    );
    expect(existsSync(path.join(p.root, '.elenchos/runs'))).toBe(false);
  });
});
