// The config keys that decide a verdict, as the test lock keeps them: an agent that points `app.command`
// at a folder of finished pages, or `verifier.command` at a script that prints PASS, is caught like one
// that deletes an assertion.
import { loadConfig } from '../../config/load-config.js';
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
  'verifier.browserPath',
] as const;

export interface LockedConfig {
  file: string;
  /** Key → sha256 of its value's canonical JSON (hashed: `app.env` or `verifier.variables` may hold secrets). */
  keys: Record<string, string>;
}

/**
 * The verdict keys of the config file (and defaults), never of the environment or flags: those are the
 * caller's, and a lock taken on one machine must hold on another.
 */
export async function lockConfig(root: string, configFile?: string): Promise<LockedConfig> {
  const loaded = await loadConfig({ root, file: configFile, env: {} });
  return { file: loaded.label, keys: configKeyHashes(loaded.config) };
}

/** sha256 of each verdict key's value (`null` when unset). */
export function configKeyHashes(config: Config): Record<string, string> {
  const keys: Record<string, string> = {};
  for (const key of VERDICT_CONFIG_KEYS) {
    const value = key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], config);
    keys[key] = sha256(canonicalJson(value ?? null));
  }
  return keys;
}
