// Every verdict says what stood behind it, and CI and a deploy gate can demand a profile: `verify --require`
// ends a task whose required guard did not stand ERROR GUARD_MISSING with one line naming it; its JSON, JUnit,
// show and report carry the guards; the attestation signs them, and `attest verify --require` refuses one
// whose tasks did not all stand on a required guard. The attacker's side: the record is Elenchos's, from what
// it saw, so an agent that writes a claim into its evidence folder claims nothing.
// @module-tag slow
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { commandAgent, FORM_TASK, KANE_CHECK_PAGE, makeProject, onlyRun, processesInside } from '../helpers/project.js';
import { tempDir } from '../helpers/temp.js';

const PASSING_PAGE = '<h1>Tasks</h1><form>New task</form><ul><li>Buy milk</li></ul>\n';
const STOOD = ['processScan', 'windowWatch', 'objectStore', 'inputsPinned'];

let project: ReturnType<typeof makeProject>;
let dir: string;
let keys: string;

beforeAll(() => {
  project = makeProject({ config: { verifier: KANE_CHECK_PAGE }, files: { 'page.html': PASSING_PAGE, ...FORM_TASK } });
  dir = tempDir('elenchos-guards-');
  keys = path.join(dir, 'keys');
  expect(runCli(['attest', 'keygen', '--out', keys], project.root).code).toBe(0);
});

afterAll(() => {
  expect(processesInside(project.root), 'processes left').toEqual([]);
});

describe('verify --require', () => {
  it('a required sandbox that is off: ERROR GUARD_MISSING at once, one line naming it, in JSON, JUnit properties and exit 2', () => {
    const junit = path.join(dir, 'junit.xml');
    const result = runCli(['verify', 'tasks/form.json', '--require', 'sandbox', '--json', '--junit', junit], project.root, project.env);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toBe(
      'elenchos: sandbox cannot stand: agent.sandbox is "none"; this run cannot end VERIFIED and stops here (set agent.sandbox to "bwrap", or drop sandbox from guards.require / --require)\n',
    );
    const [run] = JSON.parse(result.stdout).runs;
    expect(run).toMatchObject({
      state: 'ERROR',
      reason: 'GUARD_MISSING',
      message: 'required guard(s) did not stand: sandbox (agent.sandbox is "none")',
      attempts: [],
      guards: { attempt: null, required: ['sandbox', ...STOOD] },
    });
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<property name="elenchos.guards.required" value="sandbox,processScan,windowWatch,objectStore,inputsPinned"/>');
    expect(xml).toMatch(
      /<testcase classname="form" name="verdict" time="0"><error message="ERROR GUARD_MISSING: required guard\(s\) did not stand: sandbox/,
    );
  });

  it('guards that stood: VERIFIED, and the record says which stood and which did not', () => {
    const result = runCli(['verify', 'tasks/form.json', '--require', 'processScan,windowWatch', '--json'], project.root, project.env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    const [run] = JSON.parse(result.stdout).runs;
    expect(run.guards).toMatchObject({ attempt: 1, stood: STOOD, missing: ['sandbox'], required: STOOD, allowed: [] });
    expect(run.guards.detail.sandbox).toMatchObject({ stood: false, how: 'none', agent: null, app: { mode: 'none' } });
    expect(run.guards.detail.processScan.scans).toEqual([
      { after: 'verification', source: 'proc', blind: [], why: '/proc lists this process' },
    ]);
    expect(run.guards.detail.inputsPinned).toMatchObject({ stood: true, files: 2, roles: ['task', 'task-canonical', 'test'] });
    // attempt.json holds the same, and show and the report print it.
    const runDir = path.join(project.root, '.elenchos/runs', run.runId);
    expect(JSON.parse(readFileSync(path.join(runDir, 'attempts/01/attempt.json'), 'utf8')).guards).toEqual(run.guards.detail);
    const show = runCli(['show', run.runId], project.root, project.env);
    expect(show.stdout).toContain(`guards stood: ${STOOD.join(', ')}\n  not standing: sandbox: agent.sandbox is "none"\n`);
    const html = path.join(dir, 'report.html');
    expect(runCli(['report', run.runId, '--out', html], project.root, project.env).code).toBe(0);
    expect(readFileSync(html, 'utf8')).toContain(
      '<h2>Guards behind the verdict</h2><table><tr><th>guard</th><th>stood</th><th>how</th><th>why</th></tr>',
    );
    expect(readFileSync(html, 'utf8')).toContain(
      '<tr><td>sandbox</td><td>no</td><td>none</td><td>agent.sandbox is &quot;none&quot;</td></tr>',
    );
  });

  it('a name that is no guard: one line, exit 3, nothing run', () => {
    const result = runCli(['verify', '--require', 'sandbox,firewall'], project.root, project.env);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /not a guard: firewall; expected guard names from sandbox, processScan, windowWatch, objectStore, inputsPinned/,
    );
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('attest verify --require', () => {
  it('signs the guards into the predicate; a gate that requires one that did not stand refuses with one line, exit 1', () => {
    const attestation = path.join(dir, 'verify.att.json');
    const verdict = path.join(dir, 'verdict.json');
    const verified = runCli(
      ['verify', '--json', '--attest', attestation, '--attest-key', path.join(keys, 'elenchos-attest.key')],
      project.root,
      project.env,
    );
    expect(verified.code, verified.stderr).toBe(0);
    writeFileSync(verdict, verified.stdout);
    const payload = JSON.parse(Buffer.from(JSON.parse(readFileSync(attestation, 'utf8')).payload, 'base64').toString('utf8'));
    expect(payload.predicate.guards).toEqual({
      stood: STOOD,
      missing: ['sandbox'],
      tasks: {
        'tasks/add-task.json': { stood: STOOD, missing: ['sandbox'] },
        'tasks/form.json': { stood: STOOD, missing: ['sandbox'] },
      },
    });
    const gate = (...more: string[]) =>
      runCli(
        ['attest', 'verify', attestation, '--key', path.join(keys, 'elenchos-attest.pub'), '--verdict', verdict, ...more],
        project.root,
      );
    const held = gate('--require', 'processScan,windowWatch');
    expect(held.code, held.stderr).toBe(0);
    expect(held.stdout).toMatch(/guards behind every task: processScan, windowWatch, objectStore, inputsPinned\n$/);
    const refused = gate('--require', 'sandbox,processScan');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'elenchos: attestation refused (guards): required guard(s) did not stand behind every task: sandbox (not in tasks/add-task.json, tasks/form.json)\n',
    );
  });
});

describe('the record is what Elenchos saw', () => {
  it('an agent that writes a guards claim into its own attempt.json and run.json claims nothing', () => {
    // The agent knows where its evidence lives (ELENCHOS_PROMPT_FILE is in it) and writes there, unsandboxed.
    const forging = makeProject({ config: { agent: commandAgent('forge-guards') } });
    const result = runCli(['run', 'tasks/add-task.json', '--json'], forging.root, forging.env);
    expect(result.code, result.stderr).toBe(0);
    const { dir: runDir, record } = onlyRun(forging.root);
    expect(readdirSync(path.join(runDir, 'attempts/01'))).toContain('prompt.md.forged');
    // What the run printed and stored is its own: the sandbox did not stand.
    expect(JSON.parse(result.stdout).guards.missing).toEqual(['sandbox']);
    expect(record.guards.missing).toEqual(['sandbox']);
    expect(JSON.parse(readFileSync(path.join(runDir, 'attempts/01/attempt.json'), 'utf8')).guards.sandbox.stood).toBe(false);
    expect(processesInside(forging.root)).toEqual([]);
  });
});
