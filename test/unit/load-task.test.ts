import { symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { loadTask } from '../../src/contract/load-task.js';
import { resolveTask } from '../../src/core/resolve-task.js';
import { ElenchosError, ExitCode } from '../../src/errors.js';
import { parseJsonText } from '../../src/util/json-file.js';
import { kaneTest, taskJson, tempDir, writeFiles } from '../helpers/temp.js';

async function problems(fn: () => Promise<unknown>): Promise<{ message: string; details: readonly string[]; exitCode: number }> {
  try {
    await fn();
  } catch (error) {
    if (error instanceof ElenchosError) return { message: error.message, details: error.details, exitCode: error.exitCode };
    throw error;
  }
  throw new Error('expected an error');
}

describe('loadTask', () => {
  it('loads a valid contract with $schema and keeps its bytes', async () => {
    const root = tempDir();
    const text = taskJson({ $schema: '../node_modules/elenchos/schemas/task.schema.json' });
    writeFiles(root, { 'tasks/a.json': text });
    const loaded = await loadTask('tasks/a.json', { root });
    expect(loaded.label).toBe('tasks/a.json');
    expect(loaded.task.acceptanceCriteria).toHaveLength(2);
    expect(loaded.bytes.toString()).toBe(text);
  });

  it('reports every problem at once as file: json.path: message', async () => {
    const root = tempDir();
    writeFiles(root, {
      'tasks/a.json': JSON.stringify({
        id: 'Bad Id',
        title: 7,
        extra: true,
        acceptanceCriteria: [
          { id: 'AC-1', description: 'x' },
          { id: 'ac-1', description: 'y' },
          { id: 'nope', description: '' },
        ],
        verification: { testFile: '../outside_test.md', color: 'red' },
      }),
    });
    const err = await problems(() => loadTask('tasks/a.json', { root }));
    expect(err.exitCode).toBe(ExitCode.INPUT);
    expect(err.message).toBe('tasks/a.json: invalid task contract (9 problems)');
    expect([...err.details].sort()).toEqual(
      [
        'tasks/a.json: id: id must be a lowercase slug: letters, digits, ".", "_" or "-", at most 64 characters',
        'tasks/a.json: title: title must be a string',
        'tasks/a.json: description: description is required',
        'tasks/a.json: extra: unknown key; remove it or check its spelling',
        'tasks/a.json: acceptanceCriteria[1].id: duplicate criterion id "ac-1" (same as acceptanceCriteria[0].id; ids are case-insensitive); give it a unique id',
        'tasks/a.json: acceptanceCriteria[2].id: criterion id must look like PREFIX-N (for example AC-001)',
        'tasks/a.json: acceptanceCriteria[2].description: criterion description must not be empty',
        'tasks/a.json: verification.testFile: must not contain ".." (it must stay inside the repository)',
        'tasks/a.json: verification.color: unknown key; remove it or check its spelling',
      ].sort(),
    );
  });

  it('reports a missing test file beside the schema problems, and names the key a misspelt one meant', async () => {
    const root = tempDir();
    writeFiles(root, {
      'tasks/a.json': JSON.stringify({
        id: 'Bad Id',
        title: 't',
        description: 'd',
        acceptanceCriteria: [{ id: 'AC-001', description: 'x' }],
        verification: { testFile: 'tests/missing_test.md', timeout: 5 },
      }),
    });
    const err = await problems(() => loadTask('tasks/a.json', { root }));
    expect(err.message).toBe('tasks/a.json: invalid task contract (3 problems)');
    expect(err.details).toEqual([
      'tasks/a.json: id: id must be a lowercase slug: letters, digits, ".", "_" or "-", at most 64 characters',
      'tasks/a.json: verification.timeout: unknown key; did you mean verification.timeoutSeconds?',
      'tasks/a.json: verification.testFile: "tests/missing_test.md" does not exist; create it or fix the path',
    ]);
  });

  it('needs at least one criterion', async () => {
    const root = tempDir();
    writeFiles(root, { 't.json': taskJson({ acceptanceCriteria: [] }), 'tests/add-task_test.md': '' });
    const err = await problems(() => loadTask('t.json', { root }));
    expect(err.details).toEqual(['t.json: acceptanceCriteria: acceptanceCriteria needs at least one criterion']);
  });

  it('reports malformed JSON with line and column', async () => {
    const root = tempDir();
    writeFiles(root, { 't.json': '{\n  "id": "a",\n  "title": "x",,\n}' });
    const err = await problems(() => loadTask('t.json', { root }));
    expect(err.message).toBe('t.json:3:16: invalid JSON: Expected double-quoted property name');
    expect(err.exitCode).toBe(ExitCode.INPUT);
  });

  it('reports a missing file', async () => {
    const err = await problems(() => loadTask('missing.json', { root: tempDir() }));
    expect(err.message).toBe('missing.json: cannot read (no such file); check the path');
  });
});

describe('parseJsonText', () => {
  it('locates errors V8 gives no position for', () => {
    expect(() => parseJsonText('{\n "a": tru\n}', 'f.json')).toThrow('f.json:2:10: invalid JSON: Unexpected token "\\n"');
    expect(() => parseJsonText('', 'f.json')).toThrow('f.json:1:1: invalid JSON: Unexpected end of JSON input');
  });
});

describe('resolveTask (test file rules)', () => {
  async function setup(testFile: string, files: Record<string, string> = {}) {
    const root = tempDir();
    writeFiles(root, { 'tasks/a.json': taskJson({ verification: { testFile } }), ...files });
    const { config } = await loadConfig({ root });
    return { root, run: () => resolveTask('tasks/a.json', root, config, {}) };
  }

  it('resolves the test file and maps criteria to steps', async () => {
    const { run } = await setup('tests/add-task_test.md', { 'tests/add-task_test.md': kaneTest(2) });
    const resolved = await run();
    expect(resolved.testFileLabel).toBe('tests/add-task_test.md');
    expect(resolved.map.steps.map((s) => s.criteria)).toEqual([['AC-001'], ['AC-002']]);
  });

  it('rejects a test file that does not exist', async () => {
    const { run } = await setup('tests/missing_test.md');
    expect((await problems(run)).message).toBe(
      'tasks/a.json: verification.testFile: "tests/missing_test.md" does not exist; create it or fix the path',
    );
  });

  it('rejects a Kane test that is not _test.md', async () => {
    const { run } = await setup('tests/add-task.md', { 'tests/add-task.md': kaneTest(2) });
    expect((await problems(run)).message).toBe(
      'tasks/a.json: verification.testFile: "tests/add-task.md" must end in _test.md (Kane runs only _test.md files)',
    );
  });

  it('rejects a symlink that leads outside the repository', async () => {
    const outside = tempDir();
    writeFileSync(path.join(outside, 'evil_test.md'), kaneTest(2));
    const { root, run } = await setup('tests/evil_test.md', { 'tests/.keep': '' });
    symlinkSync(path.join(outside, 'evil_test.md'), path.join(root, 'tests/evil_test.md'));
    const err = await problems(run);
    expect(err.message).toMatch(
      /^tasks\/a\.json: verification\.testFile: "tests\/evil_test\.md" is a symlink that leads outside the repository \(to .*evil_test\.md\); commit the file itself$/,
    );
    expect(err.exitCode).toBe(ExitCode.INPUT);
  });

  it('accepts a symlink that stays inside the repository', async () => {
    const { root, run } = await setup('tests/link_test.md', { 'real/add_test.md': kaneTest(2), 'tests/.keep': '' });
    symlinkSync(path.join(root, 'real/add_test.md'), path.join(root, 'tests/link_test.md'));
    expect((await run()).map.unmapped).toEqual([]);
  });
});
