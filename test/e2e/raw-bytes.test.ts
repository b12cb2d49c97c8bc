// Evidence is byte for byte: what the agent and the verifier wrote is stored as written (invalid UTF-8,
// NUL, CR), also after redaction rewrote the file around a secret.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { FIXTURES, makeProject, onlyRun, processesInside } from '../helpers/project.js';

let roots: string[] = [];
afterEach(() => {
  for (const root of roots) expect(processesInside(root), `processes left in ${root}`).toEqual([]);
  roots = [];
});

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
const SECRET = 'tok-3f9a1c77e2';
// What the agent prints: invalid UTF-8 (ff fe, a lone é in latin1), CRLF, a NUL-free line holding a secret.
const AGENT_OUT = bytes(
  [0x7b, 0xff, 0xfe, 0x7d, 0x0a],
  `caf${'\u00e9'} \r\n`,
  `token=${SECRET};`,
  [0xc3, 0x28],
  '\n',
  'no newline at the end',
);
const AGENT_STORED = Buffer.from(AGENT_OUT.toString('latin1').replace(SECRET, '[REDACTED]'), 'latin1');
const VERIFIER_OUT = bytes([0x7b, 0xff, 0xfe, 0x7d, 0x0a, 0x61, 0x00, 0x62, 0x0d, 0x0a]);
const VERIFIER_ERR = bytes([0x7b, 0xff, 0xfe, 0x7d, 0x0a], 'warn\r\n');

describe('evidence is byte for byte', () => {
  it('keeps the agent log and the verifier streams exactly as the children wrote them', async () => {
    const agent = `process.stdout.write(Buffer.from('${AGENT_OUT.toString('base64')}', 'base64'))`;
    const project = makeProject({
      config: {
        agent: { type: 'command', command: process.execPath, args: ['-e', agent], timeoutSeconds: 30 },
        verifier: { type: 'command', command: path.join(FIXTURES, 'bin/raw-bytes-verifier'), timeoutSeconds: 30 },
        redact: ['RAW_TEST_TOKEN'],
      },
    });
    roots.push(project.root);
    // In-process: the children (the agent, the verifier) are what write the bytes, and they are processes.
    const result = await runMain(['run', 'tasks/add-task.json'], project.root, { ...project.env, RAW_TEST_TOKEN: SECRET });
    expect(result.stderr).toBe('');
    const { dir, record } = onlyRun(project.root);
    expect(record.attempts[0].status).toBe('PASS');
    const attempt = path.join(dir, 'attempts/01');
    // Redaction rewrote agent.log (the secret), and every other byte stayed where it was.
    expect(readFileSync(path.join(attempt, 'agent.log')).toString('hex')).toBe(AGENT_STORED.toString('hex'));
    const events = readFileSync(path.join(attempt, 'verifier/events.ndjson'));
    expect(events.subarray(0, VERIFIER_OUT.length).toString('hex')).toBe(VERIFIER_OUT.toString('hex'));
    expect(events.subarray(VERIFIER_OUT.length).toString('utf8')).toMatch(
      /^\{"type":"step_start".*\{"type":"done","status":"passed"\}\n$/s,
    );
    expect(readFileSync(path.join(attempt, 'verifier/stderr.log')).toString('hex')).toBe(VERIFIER_ERR.toString('hex'));
    // The terminal shows the agent's lines decoded, without their CR.
    expect(result.stdout).toContain('[agent] caf\ufffd ');
    expect(result.stdout).not.toContain('\r');
  });
});
