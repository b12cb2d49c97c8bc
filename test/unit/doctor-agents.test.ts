// doctor's agent check finds Gemini CLI and OpenCode by their default executable on PATH, and says when it cannot.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/config-schema.js';
import { checkAgent } from '../../src/core/doctor/tool-checks.js';
import { FIXTURES } from '../helpers/project.js';
import { tempDir } from '../helpers/temp.js';

const config = (type: 'gemini' | 'opencode') => ConfigSchema.parse({ agent: { type } });

describe('doctor agent check', () => {
  it.each(['gemini', 'opencode'] as const)('finds %s on PATH', async (type) => {
    const bin = path.join(FIXTURES, 'bin');
    expect(await checkAgent(config(type), tempDir(), { PATH: bin })).toMatchObject({
      status: 'ok',
      message: `${type}: ${path.join(bin, type)}`,
    });
  });

  it.each(['gemini', 'opencode'] as const)('fails naming %s when it is not on PATH', async (type) => {
    expect(await checkAgent(config(type), tempDir(), { PATH: tempDir() })).toMatchObject({
      status: 'fail',
      message: `agent executable "${type}" not found (agent.type ${type})`,
    });
  });
});
