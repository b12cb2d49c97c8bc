// A generated fuzz test over task and config files: a few hundred malformed inputs (seeded, so every
// run tries the same ones) through `check` and the loaders in-process, and a sample through the real
// CLI. Each must be refused in one line naming the file, with no stack trace and no hang.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { loadTask } from '../../src/contract/load-task.js';
import { checkTasks } from '../../src/core/check.js';
import { ElenchosError } from '../../src/errors.js';
import { runCli } from '../helpers/cli.js';
import { makeProject } from '../helpers/project.js';
import { taskJson } from '../helpers/temp.js';

/** mulberry32: a tiny seeded generator, so a failure names an input that can be generated again. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VALID_CONFIG = JSON.stringify(
  {
    agent: { type: 'command', command: 'node', args: ['agent.js'] },
    app: { command: 'node app.js --port {port}' },
    verifier: { type: 'kane' },
  },
  null,
  2,
);
const JUNK = [
  '\u0000',
  '\uFEFF',
  '\u001b[31m',
  ',',
  '}',
  ']',
  '{',
  '[',
  '"',
  ':',
  'NaN',
  'Infinity',
  '-',
  '1e999',
  '/* c */',
  "'",
  '\\',
  '\ud800',
  'null',
  'true',
  '\n',
  '\u2028',
  'undefined',
];
const WRONG = [
  'null',
  '0',
  '-1',
  '1.5',
  '1e400',
  'true',
  '[]',
  '{}',
  '""',
  '"\\u0000"',
  '"../../etc/passwd"',
  '"/etc/passwd"',
  '"javascript:alert(1)"',
  `"${'x'.repeat(5000)}"`,
  '[[[[[[]]]]]]',
  '{"a":{"b":{"c":{}}}}',
];

/** One malformed variant of `text`; `kind` says what was done (for the failure message). */
function mutate(text: string, rnd: () => number): { kind: string; text: string } {
  const at = () => Math.floor(rnd() * text.length);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const keys = [...text.matchAll(/"([A-Za-z$]+)":/g)];
  switch (Math.floor(rnd() * 9)) {
    case 0:
      return { kind: 'truncated', text: text.slice(0, at()) };
    case 1: {
      const i = at();
      return { kind: 'junk inserted', text: text.slice(0, i) + pick(JUNK) + text.slice(i) };
    }
    case 2: {
      const i = at();
      return { kind: 'range deleted', text: text.slice(0, i) + text.slice(i + 1 + Math.floor(rnd() * 20)) };
    }
    case 3: {
      const key = pick(keys);
      return { kind: `duplicate key ${key[1]}`, text: `${text.slice(0, key.index)}"${key[1]}": ${pick(WRONG)}, ${text.slice(key.index)}` };
    }
    case 4: {
      const key = pick(keys);
      const start = key.index! + key[0].length;
      const end = findValueEnd(text, start);
      return { kind: `${key[1]} replaced`, text: `${text.slice(0, start)} ${pick(WRONG)}${text.slice(end)}` };
    }
    case 5: {
      const depth = 60 + Math.floor(rnd() * 20_000);
      const key = pick(keys);
      const start = key.index! + key[0].length;
      return {
        kind: `nested ${depth} deep`,
        text: `${text.slice(0, start)} ${'['.repeat(depth)}${']'.repeat(depth)}${text.slice(findValueEnd(text, start))}`,
      };
    }
    case 6:
      return { kind: 'unknown key', text: text.replace('{', `{"${pick(['tilte', 'agnet', '__proto__', 'constructor', 'x\u0000y'])}": 1,`) };
    case 7:
      return { kind: 'not an object', text: pick(WRONG) };
    default: {
      const bytes = Buffer.from(text);
      for (let n = 1 + Math.floor(rnd() * 4); n > 0; n--) bytes[Math.floor(rnd() * bytes.length)] = Math.floor(rnd() * 256);
      return { kind: 'bytes flipped', text: bytes.toString('latin1') };
    }
  }
}

// The end of the JSON value starting at `start` (after `"key":`), by bracket counting outside strings.
function findValueEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (depth === 0) return i;
      depth--;
    } else if (c === ',' && depth === 0) return i;
  }
  return text.length;
}

/** Resolves or rejects within `ms`, else fails as a hang. */
async function withinTime<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`hung for more than ${ms} ms`)), ms)));
  try {
    return await Promise.race([work, hang]);
  } finally {
    clearTimeout(timer);
  }
}

/** The hostile file kinds: none of them is a regular JSON file. */
function hostileFiles(dir: string, stem: string): string[] {
  execFileSync('mkfifo', [path.join(dir, `${stem}-fifo.json`)]);
  symlinkSync('/dev/zero', path.join(dir, `${stem}-zero.json`));
  symlinkSync('/dev/urandom', path.join(dir, `${stem}-urandom.json`));
  mkdirSync(path.join(dir, `${stem}-dir.json`));
  writeFileSync(path.join(dir, `${stem}-empty.json`), '');
  writeFileSync(path.join(dir, `${stem}-huge.json`), `{"id": "${'a'.repeat(2 * 1024 * 1024)}"}`);
  symlinkSync('missing.json', path.join(dir, `${stem}-dangling.json`));
  return ['fifo', 'zero', 'urandom', 'dir', 'empty', 'huge', 'dangling'].map((k) => `${stem}-${k}.json`);
}

const TASKS = 300;
const CONFIGS = 200;

describe('fuzzed task and config files', () => {
  const p = makeProject();
  const rnd = random(20261130);
  const validTask = taskJson();
  const taskInputs = Array.from({ length: TASKS }, () => mutate(validTask, rnd));
  const configInputs = Array.from({ length: CONFIGS }, () => mutate(VALID_CONFIG, rnd));
  const tally = { tried: 0, refused: 0, accepted: 0 };

  it(`${TASKS} generated and 7 hostile task files: check refuses each naming the file, or accepts a valid one`, async () => {
    mkdirSync(path.join(p.root, 'fuzz'), { recursive: true });
    const files = taskInputs.map((input, i) => {
      const name = `fuzz/task-${i}.json`;
      writeFileSync(path.join(p.root, name), Buffer.from(input.text, input.kind === 'bytes flipped' ? 'latin1' : 'utf8'));
      return { name, kind: input.kind };
    });
    files.push(...hostileFiles(path.join(p.root, 'fuzz'), 'task').map((name) => ({ name: `fuzz/${name}`, kind: name })));
    // One call for all (one repository lookup, as `elenchos check tasks/*.json` would do); a hang fails it.
    const started = Date.now();
    const report = await withinTime(20_000, checkTasks({ cwd: p.root, files: files.map((f) => f.name), env: {} }));
    const elapsed = Date.now() - started;
    for (const [i, { name, kind }] of files.entries()) {
      const task = report.tasks[i]!;
      tally.tried++;
      if (task.ok) {
        tally.accepted++;
        // Accepted only if it really is a valid contract, and never one these mutations always break.
        expect(kind, name).not.toMatch(
          /duplicate key|nested|not an object|unknown key|-(fifo|zero|urandom|dir|empty|huge|dangling)\.json$/,
        );
        await expect(loadTask(name, { root: p.root }), `${name} (${kind})`).resolves.toBeDefined();
      } else {
        tally.refused++;
        expect(task.problems.length, `${name} (${kind})`).toBeGreaterThan(0);
        expect(task.problems[0], `${name} (${kind})`).toContain(name);
      }
    }
    expect(elapsed / files.length).toBeLessThan(200); // well under a second each, even on a loaded machine
  }, 60_000);

  it(`${CONFIGS} generated and 7 hostile config files: loadConfig refuses each with an input error naming the file`, async () => {
    const dir = path.join(p.root, 'fuzz-config');
    mkdirSync(dir, { recursive: true });
    const files = configInputs.map((input, i) => {
      const name = `fuzz-config/config-${i}.json`;
      writeFileSync(path.join(p.root, name), Buffer.from(input.text, input.kind === 'bytes flipped' ? 'latin1' : 'utf8'));
      return { name, kind: input.kind };
    });
    files.push(...hostileFiles(dir, 'config').map((name) => ({ name: `fuzz-config/${name}`, kind: name })));
    for (const { name, kind } of files) {
      const started = Date.now();
      const outcome = await withinTime(
        2000,
        loadConfig({ root: p.root, file: name, env: {} }).then(
          () => null,
          (error: unknown) => error,
        ),
      );
      tally.tried++;
      if (outcome === null) {
        tally.accepted++;
        expect(kind, name).not.toMatch(/duplicate key|nested|unknown key|-(fifo|zero|urandom|dir|empty|huge|dangling)\.json$/);
      } else {
        tally.refused++;
        expect(outcome, `${name} (${kind}): ${String(outcome)}`).toBeInstanceOf(ElenchosError);
        const error = outcome as ElenchosError;
        expect(error.exitCode, `${name} (${kind})`).toBe(3);
        expect([error.message, ...error.details].join('\n'), `${name} (${kind})`).toContain(name);
      }
      expect(Date.now() - started, `${name} (${kind})`).toBeLessThan(1000);
    }
    // The figure docs/security.md quotes.
    console.log(
      `fuzz: ${tally.tried} inputs tried, ${tally.refused} refused in one line naming the file, ${tally.accepted} valid and accepted, 0 stack traces, 0 hangs`,
    );
  }, 60_000);

  it('a sample through the real CLI: check, run and verify exit 3 naming the file, no stack trace', () => {
    const sample = [7, 61, 113, 167].map((i) => `fuzz/task-${i}.json`);
    sample.push('fuzz/task-fifo.json', 'fuzz/task-zero.json');
    let cli = 0;
    for (const file of sample) {
      for (const command of file.endsWith('-fifo.json') ? ['check', 'run', 'verify'] : ['check']) {
        const result = runCli([command, file], p.root, p.env);
        const output = result.stdout + result.stderr;
        cli++;
        if (result.code === 0) continue; // a mutation that stayed valid
        expect(result.code, `${command} ${file}: ${output}`).toBe(3);
        expect(output, `${command} ${file}`).toContain(file);
        expect(output, `${command} ${file}`).not.toMatch(/\n\s+at |unexpected error/);
      }
    }
    expect(cli).toBe(8);
    rmSync(path.join(p.root, 'fuzz'), { recursive: true, force: true });
  }, 120_000);
});
