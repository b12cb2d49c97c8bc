// What `elenchos init` can tell about a project by looking: its scripts, its Playwright, the tools on PATH.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { AgentType } from '../../config/config-schema.js';
import { findExecutable } from '../../process/find-executable.js';

export type InitVerifier = 'kane' | 'playwright';
export type PackageManager = 'npm' | 'pnpm' | 'yarn';

export interface DetectedProject {
  root: string;
  packageManager: PackageManager | null;
  /** Why that one, when the project leaves room for doubt (several lockfiles, a `packageManager` field); else null. */
  packageManagerWhy: string | null;
  /** The package.json script that starts the app for development, if any. */
  appScript: 'dev' | 'start' | null;
  /** A `playwright.config.*` at the root, repo-relative. */
  playwrightConfig: string | null;
  /** The Playwright config's `testDir`, when it is a plain string literal. */
  playwrightTestDir: string | null;
  /** `@playwright/test` is a dependency of the project. */
  playwrightDependency: boolean;
  /** A Next.js project: `next` is a dependency, or a next.config.* is at the root. */
  nextjs: boolean;
  kaneCli: string | null;
  claude: string | null;
  codex: string | null;
  gemini: string | null;
  opencode: string | null;
}

const PLAYWRIGHT_CONFIGS = [
  'playwright.config.ts',
  'playwright.config.js',
  'playwright.config.mjs',
  'playwright.config.mts',
  'playwright.config.cjs',
  'playwright.config.cts',
];

const NEXT_CONFIGS = ['next.config.js', 'next.config.mjs', 'next.config.cjs', 'next.config.ts', 'next.config.mts', 'next.config.cts'];

/** Reads package.json, lockfiles and Playwright config at `root`, and looks up kane-cli / claude / codex on PATH. */
export async function detectProject(root: string, env: NodeJS.ProcessEnv): Promise<DetectedProject> {
  const manifest = await readManifest(root);
  const scripts = manifest?.scripts ?? {};
  const dependencies = { ...manifest?.dependencies, ...manifest?.devDependencies };
  const playwrightConfig = PLAYWRIGHT_CONFIGS.find((name) => existsSync(path.join(root, name))) ?? null;
  const lookup = (command: string) => findExecutable(command, { cwd: root, pathEnv: env.PATH });
  const manager = manifest === null ? null : detectPackageManager(root, manifest);
  return {
    root,
    packageManager: manager?.manager ?? null,
    packageManagerWhy: manager?.why ?? null,
    appScript: typeof scripts.dev === 'string' ? 'dev' : typeof scripts.start === 'string' ? 'start' : null,
    playwrightConfig,
    playwrightTestDir: playwrightConfig ? await readTestDir(root, playwrightConfig) : null,
    playwrightDependency: '@playwright/test' in dependencies,
    nextjs: 'next' in dependencies || NEXT_CONFIGS.some((name) => existsSync(path.join(root, name))),
    kaneCli: await lookup('kane-cli'),
    claude: await lookup('claude'),
    codex: await lookup('codex'),
    gemini: await lookup('gemini'),
    opencode: await lookup('opencode'),
  };
}

interface Manifest {
  packageManager?: unknown;
  scripts?: Record<string, unknown>;
  dependencies?: Record<string, unknown>;
  devDependencies?: Record<string, unknown>;
}

async function readManifest(root: string): Promise<Manifest | null> {
  try {
    const value: unknown = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Manifest) : {};
  } catch {
    // No package.json, or one that does not parse: nothing to learn from it (npm will say what is wrong).
    return null;
  }
}

// In the order a lockfile wins when there are several: a package-lock.json beside another is most often
// what `npm install -D <pkg>` left in a yarn or pnpm project (getting-started's own install does that).
const LOCKFILES: readonly (readonly [PackageManager, string])[] = [
  ['pnpm', 'pnpm-lock.yaml'],
  ['yarn', 'yarn.lock'],
  ['npm', 'package-lock.json'],
];

/** package.json's `packageManager` (what Corepack runs) first, else the lockfile; why, when it was not obvious. */
function detectPackageManager(root: string, manifest: Manifest): { manager: PackageManager; why: string | null } {
  const found = LOCKFILES.filter(([, file]) => existsSync(path.join(root, file)));
  const names = found.map(([, file]) => file);
  const field = typeof manifest.packageManager === 'string' ? manifest.packageManager : null;
  const declared = field === null ? null : (LOCKFILES.find(([manager]) => field.startsWith(`${manager}@`))?.[0] ?? null);
  if (declared) {
    const plain = found.length === 0 || (found.length === 1 && found[0]![0] === declared);
    return { manager: declared, why: plain ? null : `package.json says "packageManager": "${field}" (lockfiles: ${names.join(', ')})` };
  }
  const [first] = found;
  if (!first) return { manager: 'npm', why: null };
  if (found.length === 1) return { manager: first[0], why: null };
  const leftover = names.includes('package-lock.json')
    ? `; a package-lock.json beside it is usually what an npm install -D left in a ${first[0]} project`
    : '';
  return {
    manager: first[0],
    why: `chose ${first[0]}: ${names.join(' and ')} exist, and ${first[1]} wins${leftover}; to use another, delete the other lockfile or set "packageManager" in package.json`,
  };
}

// A literal `testDir: './e2e'` is all init needs; anything computed is left alone (the spec then goes to tests/).
async function readTestDir(root: string, configFile: string): Promise<string | null> {
  const source = await readFile(path.join(root, configFile), 'utf8').catch(() => '');
  const match = /\btestDir\s*:\s*(['"`])([^'"`$]+)\1/.exec(source);
  if (!match) return null;
  const relative = path.posix.normalize(match[2]!.replaceAll('\\', '/')).replace(/\/$/, '');
  return relative.startsWith('..') || path.posix.isAbsolute(relative) ? null : relative;
}

/** The verifier init picks: Playwright when the project already has it, else Kane. */
export function chooseVerifier(project: DetectedProject): { verifier: InitVerifier; why: string } {
  if (project.playwrightConfig) return { verifier: 'playwright', why: `found ${project.playwrightConfig}` };
  if (project.playwrightDependency) return { verifier: 'playwright', why: '@playwright/test is a dependency' };
  if (project.kaneCli) return { verifier: 'kane', why: `kane-cli is on PATH (${project.kaneCli})` };
  return { verifier: 'kane', why: 'no Playwright in the project and no kane-cli on PATH: Kane is the default' };
}

/** The agent init picks: the first of Claude Code, Codex, Gemini CLI, OpenCode on PATH, else Claude Code. */
export function chooseAgent(project: DetectedProject): { agent: AgentType; why: string } {
  if (project.claude) return { agent: 'claude', why: `claude is on PATH (${project.claude})` };
  if (project.codex) return { agent: 'codex', why: `codex is on PATH (${project.codex})` };
  if (project.gemini) return { agent: 'gemini', why: `gemini is on PATH (${project.gemini})` };
  if (project.opencode) return { agent: 'opencode', why: `opencode is on PATH (${project.opencode})` };
  return { agent: 'claude', why: 'none of claude, codex, gemini, opencode is on PATH: Claude Code is the default' };
}

/** How the app starts on a given port, from the project's scripts. */
export function appCommandFor(project: DetectedProject): string | null {
  if (!project.appScript) return null;
  const pm = project.packageManager ?? 'npm';
  // npm needs `--` to pass the flag on to the script. pnpm (7 and later) and yarn pass what follows the
  // script's name as it is, `--` included: `pnpm run dev -- --port 5000` runs `vite -- --port 5000`, and
  // Vite, taking what follows `--` as no option of its own, listened on its default port, never ready.
  const run =
    pm === 'npm' ? `npm run ${project.appScript} --` : pm === 'yarn' ? `yarn ${project.appScript}` : `pnpm run ${project.appScript}`;
  return `${run} --port {port}`;
}

/**
 * Where the app answers. `localhost` for Next.js: `next dev` serves its own dev resources (the page's
 * JavaScript, HMR) only to localhost and the hosts in allowedDevOrigins, so at 127.0.0.1 a page renders
 * but never hydrates and every click does nothing (core/app/next-dev-origin.ts). Others keep 127.0.0.1,
 * which never depends on how the machine resolves a name.
 */
export function appUrlFor(project: DetectedProject): { url: string; why: string | null } {
  if (project.nextjs)
    return { url: 'http://localhost:{port}/', why: 'Next.js: next dev serves its client JavaScript only to localhost (docs/config.md)' };
  return { url: 'http://127.0.0.1:{port}/', why: null };
}

/** Installs the project's dependencies in a fresh worktree. */
export function setupCommandFor(project: DetectedProject): string | null {
  if (project.packageManager === null) return null;
  if (project.packageManager === 'pnpm') return 'pnpm install --frozen-lockfile';
  if (project.packageManager === 'yarn') return 'yarn install --frozen-lockfile';
  // Without a lockfile, npm install would write one into the worktree, where it would count as the agent's change.
  return existsSync(path.join(project.root, 'package-lock.json')) ? 'npm ci' : 'npm install --no-package-lock';
}

/**
 * The setup cache for a setup that installs exactly what a lockfile says (`npm ci`): node_modules,
 * keyed by the lockfile and package.json. Others get none: pnpm links into a store outside the
 * worktree, and an install without a lockfile is not a pure function of any file.
 */
export function setupCacheFor(setupCommand: string | null): { key: string[]; paths: string[] } | null {
  return setupCommand === 'npm ci' ? { key: ['package-lock.json', 'package.json'], paths: ['node_modules'] } : null;
}
