// The Elenchos the CI workflow runs: pinned when `init --ci github` writes it, from the source the project
// installed Elenchos from, so that the commit under test (an agent's pull request) cannot choose the
// Elenchos that merges and signs by editing package.json or its lockfile.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * `git`: a git URL with its commit (npm builds dist/ from that commit with Elenchos's own `prepare`);
 * `tarball`: a packed Elenchos inside the repository, checked against the sha256 it had at init;
 * `registry`: an exact version from the npm registry; `none`: nothing pinned could be found.
 */
export type PinnedElenchos =
  { kind: 'git'; spec: string } | { kind: 'tarball'; path: string; sha256: string } | { kind: 'registry'; spec: string } | { kind: 'none' };

const GIT_WITH_COMMIT = /^(git\+[a-z+]+:\/\/|github:)[^\s#]+#[0-9a-f]{40}$/;
const TARBALL = /\.(tgz|tar\.gz)$/;
const EXACT_VERSION = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

/** Where the project's Elenchos came from: its package-lock.json entry, else its package.json spec when that is pinned. */
export async function detectPinnedElenchos(root: string): Promise<PinnedElenchos> {
  const lock = await readJson(path.join(root, 'package-lock.json'));
  const entry = (lock?.packages as Record<string, { resolved?: unknown; version?: unknown }> | undefined)?.['node_modules/elenchos'];
  if (typeof entry?.resolved === 'string') {
    const pinned = await pinOf(root, entry.resolved, entry.version);
    if (pinned) return pinned;
  }
  const manifest = await readJson(path.join(root, 'package.json'));
  const deps = { ...(manifest?.dependencies as object | undefined), ...(manifest?.devDependencies as object | undefined) } as Record<
    string,
    unknown
  >;
  const spec = deps.elenchos;
  return (typeof spec === 'string' && (await pinOf(root, spec, undefined))) || { kind: 'none' };
}

async function pinOf(root: string, source: string, version: unknown): Promise<PinnedElenchos | null> {
  if (GIT_WITH_COMMIT.test(source)) return { kind: 'git', spec: source };
  if (source.startsWith('file:') && TARBALL.test(source)) {
    const file = path.resolve(root, source.slice('file:'.length));
    const relative = path.relative(root, file);
    // A tarball outside the repository does not exist on the runner (docs/getting-started.md).
    if (relative.startsWith('..') || path.isAbsolute(relative)) return null;
    const bytes = await readFile(file).catch(() => null);
    if (!bytes) return null;
    return { kind: 'tarball', path: relative.split(path.sep).join('/'), sha256: createHash('sha256').update(bytes).digest('hex') };
  }
  if (/^https:\/\/registry\.npmjs\.org\/elenchos\/-\//.test(source) && typeof version === 'string' && EXACT_VERSION.test(version))
    return { kind: 'registry', spec: `elenchos@${version}` };
  if (EXACT_VERSION.test(source)) return { kind: 'registry', spec: `elenchos@${source}` };
  return null;
}

async function readJson(file: string): Promise<Record<string, unknown> | null> {
  try {
    const value: unknown = JSON.parse(await readFile(file, 'utf8'));
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The workflow's top-level `env:` naming the pin (read by every job's install step). */
export function renderPinEnv(pin: PinnedElenchos): string {
  const lines = [
    'env:',
    '  # The Elenchos every job runs, pinned by `elenchos init` (docs/ci.md#the-pinned-elenchos): never the one the',
    '  # commit under test installs, which an agent could point at an Elenchos that signs anything.',
  ];
  if (pin.kind === 'git' || pin.kind === 'registry') lines.push(`  ELENCHOS_PIN: ${pin.spec}`);
  else if (pin.kind === 'tarball') lines.push(`  ELENCHOS_PIN: ${pin.path}`, `  ELENCHOS_PIN_SHA256: ${pin.sha256}`);
  else lines.push("  ELENCHOS_PIN: ''");
  return `${lines.join('\n')}\n`;
}

/**
 * The step that installs the pin into $RUNNER_TEMP and puts its `elenchos` first on PATH. It runs from
 * $RUNNER_TEMP so that no .npmrc of the commit applies; a tarball is copied, then checked, then installed.
 */
export function renderPinnedInstall(pin: PinnedElenchos): string {
  const into = 'mkdir -p "$RUNNER_TEMP/elenchos" && cd "$RUNNER_TEMP/elenchos"';
  const npm = 'npm install --no-save --no-package-lock --no-audit --no-fund';
  const onPath = 'echo "$RUNNER_TEMP/elenchos/node_modules/.bin" >> "$GITHUB_PATH"';
  const body: Record<PinnedElenchos['kind'], string[]> = {
    // Elenchos's own `prepare` builds dist/ from the pinned commit: its scripts run, none of the commit's.
    git: [into, `${npm} "$ELENCHOS_PIN"`, onPath],
    tarball: [
      'cp "$ELENCHOS_PIN" "$RUNNER_TEMP/elenchos.tgz"',
      'echo "$ELENCHOS_PIN_SHA256  $RUNNER_TEMP/elenchos.tgz" | sha256sum --check --strict -',
      into,
      `${npm} --ignore-scripts "$RUNNER_TEMP/elenchos.tgz"`,
      onPath,
    ],
    registry: [into, `${npm} --ignore-scripts "$ELENCHOS_PIN"`, onPath],
    none: [
      'echo "::error::ELENCHOS_PIN is empty: set it at the top of this workflow to a git URL with its commit, or a tarball in the repository with ELENCHOS_PIN_SHA256 (docs/ci.md#the-pinned-elenchos)"',
      'exit 1',
    ],
  };
  return `      - name: Install Elenchos from its pin (not from the commit under test)
        run: |
${body[pin.kind].map((line) => `          ${line}`).join('\n')}`;
}
