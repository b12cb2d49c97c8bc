import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { ElenchosError } from '../../src/errors.js';
import { tempDir, writeFiles } from '../helpers/temp.js';

async function failure(fn: () => Promise<unknown>): Promise<ElenchosError> {
  try {
    await fn();
  } catch (error) {
    if (error instanceof ElenchosError) return error;
    throw error;
  }
  throw new Error('expected an error');
}

describe('loadConfig', () => {
  it('gives the documented defaults without a file', async () => {
    const { config, path } = await loadConfig({ root: tempDir() });
    expect(path).toBeNull();
    expect(config).toMatchObject({
      agent: { type: 'command', args: [], timeoutSeconds: 1800, env: {} },
      app: { url: 'http://127.0.0.1:{port}/', port: 0, readyTimeoutSeconds: 120 },
      verifier: { timeoutSeconds: 900, variables: {} },
      setup: { copy: [] },
      maxRepairAttempts: 2,
      maxVerifierRetries: 1,
      tasks: ['tasks/**/*.json'],
      retainWorkspace: false,
    });
    // Unset, so that each task's test file can say which verifier runs it.
    expect(config.verifier.type).toBeUndefined();
  });

  it('layers flags over environment over file over defaults', async () => {
    const root = tempDir();
    writeFiles(root, {
      'elenchos.config.json': JSON.stringify({
        maxRepairAttempts: 5,
        maxVerifierRetries: 3,
        verifier: { type: 'kane', timeoutSeconds: 60 },
      }),
    });
    const env = { ELENCHOS_MAX_REPAIR_ATTEMPTS: '4', ELENCHOS_VERIFIER_TIMEOUT_SECONDS: '30' };
    const { config } = await loadConfig({ root, env, overrides: { maxRepairAttempts: 1 } });
    expect(config.maxRepairAttempts).toBe(1);
    expect(config.verifier.timeoutSeconds).toBe(30);
    expect(config.maxVerifierRetries).toBe(3);
  });

  it('reports every problem of the file and the environment at once', async () => {
    const root = tempDir();
    writeFiles(root, {
      'elenchos.config.json': JSON.stringify({ agent: { type: 'robot' }, maxRepairAttempts: -1, verifer: {} }),
    });
    const err = await failure(() => loadConfig({ root, env: { ELENCHOS_RETAIN_WORKSPACE: 'maybe' } }));
    expect(err.exitCode).toBe(3);
    expect(err.details).toEqual([
      'environment ELENCHOS_RETAIN_WORKSPACE: "maybe" is not a valid true/false',
      'elenchos.config.json: agent.type: Invalid option: expected one of "claude"|"codex"|"command"|"gemini"|"opencode"',
      'elenchos.config.json: maxRepairAttempts: Too small: expected number to be >=0',
      'elenchos.config.json: verifer: unknown key; did you mean verifier?',
    ]);
  });

  it('names the key an unknown one most likely meant, at any depth', async () => {
    const root = tempDir();
    writeFiles(root, {
      'elenchos.config.json': JSON.stringify({ agent: { timeout: 5 }, app: { comand: 'x', readyTimeout: 3 }, tasks: ['t/*.json'], zzz: 1 }),
    });
    const err = await failure(() => loadConfig({ root }));
    expect(err.details).toEqual([
      'elenchos.config.json: agent.timeout: unknown key; did you mean agent.timeoutSeconds?',
      'elenchos.config.json: app.comand: unknown key; did you mean app.command?',
      'elenchos.config.json: app.readyTimeout: unknown key; did you mean app.readyTimeoutSeconds?',
      'elenchos.config.json: zzz: unknown key; remove it or check its spelling',
    ]);
  });

  it('requires an explicit --config file to exist', async () => {
    const err = await failure(() => loadConfig({ root: tempDir(), file: 'ci.json' }));
    expect(err.message).toBe('ci.json: config file not found; check --config or create it');
  });
});
