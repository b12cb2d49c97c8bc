import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The layers of src/, top to bottom (docs/architecture.md draws them). A file may import its own folder
// and any folder on a lower level, never one on its own level or above: imports flow one way, so no two
// folders can ever import each other. src/errors.ts, cli-io.ts, version.ts and states.ts are the ground under all;
// src/cli.ts, index.ts and schemas.ts are entry points that nothing imports.
const LEVELS = [
  ['commands'],
  ['mcp'],
  ['reporters'],
  ['core', 'attest'],
  ['agents', 'verifiers'],
  ['config', 'evidence'],
  ['contract'],
  ['git', 'process'],
  ['util'],
];
const ENTRY_POINTS = ['cli', 'index', 'schemas'];

function layerRules() {
  return LEVELS.flatMap((level, depth) =>
    level.map((folder) => {
      const above = LEVELS.slice(0, depth + 1)
        .flat()
        .filter((f) => f !== folder);
      const message = `layers: src/${folder}/ may not import from src/{${above.join(',')}}/ nor an entry point (docs/architecture.md)`;
      const upward = `^(\\.\\./)+(${above.join('|')})/`;
      const entry = `^(\\.\\./)+(${ENTRY_POINTS.join('|')})\\.js$`;
      return {
        files: [`src/${folder}/**/*.ts`],
        rules: {
          'no-restricted-imports': [
            'error',
            {
              patterns: [
                { regex: upward, message },
                { regex: entry, message },
              ],
            },
          ],
          // Dynamic import() is not seen by no-restricted-imports.
          'no-restricted-syntax': [
            'error',
            { selector: `ImportExpression[source.value=/${`${upward}|${entry}`.replaceAll('/', '\\/')}/]`, message },
          ],
        },
      };
    }),
  );
}

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', '**/.elenchos/', 'demo/**/node_modules/', '.stryker-tmp/', 'reports/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        Buffer: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        fetch: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  ...layerRules(),
  {
    // The shim is CommonJS (bin/package.json), as the bundle it runs is.
    files: ['bin/elenchos.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['src/errors.ts', 'src/cli-io.ts', 'src/version.ts', 'src/states.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^\\./', message: 'layers: the ground (errors, cli-io, version, states) imports nothing of src/' }] },
      ],
    },
  },
  {
    // Below the CLI every input is explicit: the CLI's entry (src/cli.ts, src/commands/) reads the process's
    // environment and folder once (cli-io.ts: processIO) and hands them down, so a library caller's `env`
    // and `cwd` are the ones used (keys, secrets, git), never this process's (docs/architecture.md).
    files: ['src/**/*.ts'],
    ignores: [
      'src/cli.ts',
      'src/cli-io.ts',
      'src/commands/**',
      // Entry points of processes of their own: the Playwright reporter runs inside Playwright, the
      // watchdog is a child of ours; each reads its own process's environment.
      'src/verifiers/playwright/reporter/**',
      'src/process/watchdog-main.ts',
    ],
    rules: {
      'no-restricted-properties': [
        'error',
        ...['env', 'cwd', 'chdir'].map((property) => ({
          object: 'process',
          property,
          message: `process.${property} below the CLI: take it from the caller (an \`env\` or \`cwd\` option; the CLI passes its CliIO's)`,
        })),
        {
          object: 'os',
          property: 'homedir',
          message: "os.homedir() reads this process's HOME: use the caller's env.HOME (else os.userInfo().homedir)",
        },
      ],
    },
  },
  {
    // Tests read JSON records (run.json, attempt.json) whose shape the assertions themselves check.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
