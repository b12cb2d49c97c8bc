// The config keys that decide a verdict, as the test lock keeps them: an agent that points `app.command`
// at a folder of finished pages, or `verifier.command` at a script that prints PASS, is caught like one
// that deletes an assertion.
import type { Config } from '../../config/config-schema.js';
import { sha256 } from '../../util/sha256.js';
import { canonicalJson } from './contract-lock.js';

/**
 * What the verifier looks at (the app: how it starts, where it answers, what it sees and may write), what
 * runs before it (setup, which can plant files), and the verifier itself. Timeouts, budgets, the agent, the
 * pool and gc settings are left out: they can make a run end ERROR, never turn a failing app into VERIFIED.
 */
export const VERDICT_CONFIG_KEYS = [
  'app.command',
  'app.url',
  'app.port',
  'app.env',
  'app.passEnv',
  'app.writes',
  'setup.command',
  'setup.copy',
  'setup.cache',
  'verifier.type',
  'verifier.command',
  'verifier.args',
  'verifier.variables',
  'verifier.env',
  'verifier.inputs',
  'verifier.browserPath',
] as const;

/** sha256 of each verdict key's value (`null` when unset). */
export function configKeyHashes(config: Config): Record<string, string> {
  const keys: Record<string, string> = {};
  for (const key of VERDICT_CONFIG_KEYS) {
    const value = key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], config);
    keys[key] = sha256(canonicalJson(value ?? null));
  }
  return keys;
}
