// Stored evidence: the HTML report escapes everything, the manifest catches tampering.
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { makeProject, onlyRun } from '../helpers/project.js';
import { taskJson } from '../helpers/temp.js';

describe.concurrent('elenchos report and evidence verify', { timeout: 180_000 }, () => {
  it('writes a self-contained report with every value escaped, and detects tampering', async () => {
    const hostile = '<script>alert("owned")</script><img src=x onerror=alert(1)>';
    const project = makeProject({ agent: 'implement', files: { 'tasks/add-task.json': taskJson({ title: hostile }) } });
    const run = await runMain(['run', 'tasks/add-task.json'], project.root, project.env);
    expect(run.code).toBe(0);
    const { dir, record } = onlyRun(project.root);

    const report = await runMain(['report', record.runId], project.root);
    expect(report.code).toBe(0);
    const file = report.stdout.trim();
    expect(file).toBe(path.join(project.root, '.elenchos/reports', `${record.runId}.html`));
    const html = readFileSync(file, 'utf8');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(&quot;owned&quot;)&lt;/script&gt;');
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(html).toContain('manifest verified');

    expect(await runMain(['evidence', 'verify', record.runId], project.root)).toMatchObject({ code: 0 });
    appendFileSync(path.join(dir, 'attempts/01/agent.log'), 'rewritten history\n');
    const tampered = await runMain(['evidence', 'verify', 'latest'], project.root);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toContain('evidence does NOT match its manifest');
    expect(tampered.stdout).toContain('attempts/01/agent.log');
  });
});
