// Loads elenchos.config.json with precedence: flags > environment > file > defaults.
import { access } from 'node:fs/promises';
import path from 'node:path';
import { FileNotFoundError, ValidationError } from '../errors.js';
import { readJsonFile } from '../util/json-file.js';
import { formatZodIssues } from '../util/zod-issues.js';
import { plural } from '../contract/load-task.js';
import { ConfigSchema, type Config } from './config-schema.js';

export const CONFIG_FILE = 'elenchos.config.json';

export interface LoadConfigOptions {
  root: string;
  /** `--config`: must exist when given. */
  file?: string;
  env?: NodeJS.ProcessEnv;
  /** Values from command-line flags, as a partial config (highest precedence). */
  overrides?: Record<string, unknown>;
}

export interface LoadedConfig {
  config: Config;
  /** Absolute path of the file read, or null when only defaults applied. */
  path: string | null;
  label: string;
}

/** Environment variables that set config keys (documented in docs/config.md). */
export const CONFIG_ENV: Record<string, { key: string[]; kind: 'string' | 'int' | 'bool' }> = {
  ELENCHOS_AGENT_TYPE: { key: ['agent', 'type'], kind: 'string' },
  ELENCHOS_AGENT_COMMAND: { key: ['agent', 'command'], kind: 'string' },
  ELENCHOS_AGENT_TIMEOUT_SECONDS: { key: ['agent', 'timeoutSeconds'], kind: 'int' },
  ELENCHOS_APP_COMMAND: { key: ['app', 'command'], kind: 'string' },
  ELENCHOS_APP_URL: { key: ['app', 'url'], kind: 'string' },
  ELENCHOS_VERIFIER_TYPE: { key: ['verifier', 'type'], kind: 'string' },
  ELENCHOS_VERIFIER_COMMAND: { key: ['verifier', 'command'], kind: 'string' },
  ELENCHOS_VERIFIER_TIMEOUT_SECONDS: { key: ['verifier', 'timeoutSeconds'], kind: 'int' },
  ELENCHOS_BROWSER_PATH: { key: ['verifier', 'browserPath'], kind: 'string' },
  ELENCHOS_MAX_REPAIR_ATTEMPTS: { key: ['maxRepairAttempts'], kind: 'int' },
  ELENCHOS_MAX_VERIFIER_RETRIES: { key: ['maxVerifierRetries'], kind: 'int' },
  ELENCHOS_RETAIN_WORKSPACE: { key: ['retainWorkspace'], kind: 'bool' },
};

/** Reads the config file (if any), layers environment and flags over it, and validates the result. */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const explicit = options.file !== undefined;
  const absolute = path.resolve(options.root, options.file ?? CONFIG_FILE);
  const label = path.relative(options.root, absolute).split(path.sep).join('/') || CONFIG_FILE;
  let fromFile: unknown = {};
  let found = true;
  try {
    await access(absolute);
  } catch {
    found = false;
  }
  if (found) fromFile = (await readJsonFile(absolute, label)).value;
  else if (explicit) throw new FileNotFoundError(`${label}: config file not found; check --config or create it`);

  const problems: string[] = [];
  const layered = structuredClone(isRecord(fromFile) ? fromFile : {}) as Record<string, unknown>;
  if (!isRecord(fromFile)) problems.push(`${label}: (root): must be a JSON object`);
  for (const [name, spec] of Object.entries(CONFIG_ENV)) {
    const raw = options.env?.[name];
    if (raw === undefined || raw === '') continue;
    const value = convertEnv(raw, spec.kind);
    if (value === undefined) {
      problems.push(`environment ${name}: "${raw}" is not a valid ${spec.kind === 'int' ? 'whole number' : 'true/false'}`);
      continue;
    }
    setPath(layered, spec.key, value);
  }
  for (const [key, value] of Object.entries(options.overrides ?? {})) {
    if (value !== undefined) setPath(layered, key.split('.'), value);
  }
  const parsed = ConfigSchema.safeParse(layered);
  if (!parsed.success) problems.push(...formatZodIssues(found ? label : 'configuration', parsed.error.issues, ConfigSchema));
  if (problems.length > 0 || !parsed.success) {
    throw new ValidationError(`${found ? label : 'configuration'}: invalid configuration (${plural(problems.length, 'problem')})`, {
      details: problems,
    });
  }
  return { config: parsed.data, path: found ? absolute : null, label: found ? label : '(defaults)' };
}

function convertEnv(raw: string, kind: 'string' | 'int' | 'bool'): unknown {
  if (kind === 'string') return raw;
  if (kind === 'int') return /^\d+$/.test(raw) ? Number(raw) : undefined;
  if (/^(1|true|yes)$/i.test(raw)) return true;
  if (/^(0|false|no)$/i.test(raw)) return false;
  return undefined;
}

function setPath(target: Record<string, unknown>, keys: string[], value: unknown): void {
  let node = target;
  for (const key of keys.slice(0, -1)) {
    if (!isRecord(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys.at(-1)!] = value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
