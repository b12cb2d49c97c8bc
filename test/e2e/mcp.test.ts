// `elenchos mcp` through the official SDK's client over stdio, like a coding agent would use it.
// @module-tag slow
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { runCli } from '../helpers/cli.js';
import { FAKE_AGENT, FAKE_KANE, makeProject, processesInside } from '../helpers/project.js';
import { gitSync } from '../helpers/temp.js';

async function connect(cwd: string, env: NodeJS.ProcessEnv) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    cwd,
    env: { ...process.env, ...env } as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'elenchos-test', version: '0' });
  await client.connect(transport);
  return client;
}
const text = (result: any) => result.content[0].text as string;

describe('elenchos mcp', () => {
  it('lists read-only tools, checks tasks, reads runs, and refuses verify until the config allows it', async () => {
    const project = makeProject({
      agent: 'implement',
      config: { verifier: { type: 'kane', command: FAKE_KANE, env: { FAKE_KANE_SCENARIO: 'check-page' } } },
    });
    const client = await connect(project.root, project.env);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([
        'check_task',
        'list_runs',
        'list_tasks',
        'show_run',
        'verify_evidence',
        'verify_task',
      ]);
      expect(tools.find((t) => t.name === 'list_runs')!.annotations).toMatchObject({ readOnlyHint: true });

      const check = JSON.parse(text(await client.callTool({ name: 'check_task', arguments: { tasks: ['tasks/add-task.json'] } })));
      expect(check).toMatchObject({
        ok: true,
        tasks: [
          {
            id: 'add-task',
            criteria: [
              { id: 'AC-001', steps: [1] },
              { id: 'AC-002', steps: [2] },
            ],
          },
        ],
      });
      const listed = JSON.parse(text(await client.callTool({ name: 'list_tasks', arguments: {} })));
      expect(listed.tasks.map((t: any) => t.id)).toEqual(['add-task']);
      expect(JSON.parse(text(await client.callTool({ name: 'list_runs', arguments: {} }))).runs).toEqual([]);

      const refused = (await client.callTool({ name: 'verify_task', arguments: { tasks: ['tasks/add-task.json'] } })) as any;
      expect(refused.isError).toBe(true);
      expect(text(refused)).toContain('set "mcp": { "allowVerify": true }');
      const missing = (await client.callTool({ name: 'show_run', arguments: { runId: 'nope' } })) as any;
      expect(missing.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('starts a verify when mcp.allowVerify is set, and the run reads back through show_run and verify_evidence', async () => {
    const project = makeProject({
      config: { verifier: { type: 'kane', command: FAKE_KANE, env: { FAKE_KANE_SCENARIO: 'check-page' } }, mcp: { allowVerify: true } },
    });
    writeFileSync(path.join(project.root, 'page.html'), '<h1>Tasks</h1><form>New task</form><ul><li>Buy milk</li></ul>\n');
    gitSync(project.root, 'commit', '-qam', 'the feature');
    const client = await connect(project.root, project.env);
    try {
      const verified = JSON.parse(text(await client.callTool({ name: 'verify_task', arguments: { tasks: ['tasks/add-task.json'] } })));
      expect(verified).toMatchObject({ exitCode: 0, runs: [{ mode: 'verify', state: 'VERIFIED' }] });
      const shown = JSON.parse(text(await client.callTool({ name: 'show_run', arguments: { runId: 'latest' } })));
      expect(shown.record.runId).toBe(verified.runs[0].runId);
      expect(JSON.parse(text(await client.callTool({ name: 'verify_evidence', arguments: { runId: 'latest' } })))).toEqual({
        ok: true,
        problems: [],
      });
    } finally {
      await client.close();
    }
    expect(processesInside(project.root)).toEqual([]);
  });

  it('show_run on a best-of run returns its candidates (each with its record and attempts) and the winner', async () => {
    const agent = (behaviour: string) => ({
      type: 'command',
      command: process.execPath,
      args: [FAKE_AGENT, behaviour],
      timeoutSeconds: 30,
    });
    const project = makeProject({ config: { agents: { lazy: agent('never-fix'), good: agent('implement') } } });
    const run = runCli(
      ['run', 'tasks/add-task.json', '--agents', 'lazy,good', '--parallel', '2', '--max-repairs', '0'],
      project.root,
      project.env,
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const client = await connect(project.root, project.env);
    try {
      const shown = JSON.parse(text(await client.callTool({ name: 'show_run', arguments: { runId: 'latest' } })));
      expect(shown.record.winner).toEqual({ name: 'good', reason: 'the only VERIFIED candidate of 2' });
      expect(shown.record.candidates.map((c: any) => [c.name, c.state])).toEqual([
        ['lazy', 'FAILED'],
        ['good', 'VERIFIED'],
      ]);
      expect(shown.candidates.map((c: any) => [c.name, c.record.state, c.attempts.length])).toEqual([
        ['lazy', 'FAILED', 1],
        ['good', 'VERIFIED', 1],
      ]);
      expect(shown.candidates[0].attempts[0].criteria.map((k: any) => [k.id, k.status])).toEqual([
        ['AC-001', 'PASS'],
        ['AC-002', 'FAIL'],
      ]);
    } finally {
      await client.close();
    }
    expect(processesInside(project.root)).toEqual([]);
  }, 120_000);
});
