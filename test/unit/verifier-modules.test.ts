// What a command verifier's interpreter loads from the repository, followed statically: Python imports,
// Node imports (resolved as Node resolves them), shell `source`; what cannot be followed is named with its line.
import { describe, expect, it } from 'vitest';
import { commandLockedInputs } from '../../src/verifiers/command/command-inputs.js';
import { pythonLoads } from '../../src/verifiers/command/python-imports.js';
import { shellLoads } from '../../src/verifiers/command/shell-loads.js';
import { verifierModules } from '../../src/verifiers/command/verifier-modules.js';
import { tempDir, writeFiles } from '../helpers/temp.js';

const run = (command: string, args: string[] = [], env: Record<string, string> = {}) => ({ command, args, env });

function repo(files: Record<string, string>): string {
  const root = tempDir();
  writeFiles(root, files);
  return root;
}

describe('Python', () => {
  it('follows import, from-import, relative imports and packages, from the script’s folder', async () => {
    const root = repo({
      'tests/verify.py': [
        '#!/usr/bin/env python3',
        'import json, os.path',
        'import checks',
        'from lib.pages import fetch as get',
        'from . import sibling',
        'if True: import inline_one',
        'def f():',
        '    from lib import (',
        '        text,  # a comment',
        '    )',
        's = """import not_code"""',
        '# import commented',
      ].join('\n'),
      'tests/checks.py': 'from .helpers import x\nfrom ..up import y\n',
      'tests/helpers.py': '',
      'tests/sibling.py': '',
      'tests/inline_one.py': '',
      'tests/lib/__init__.py': '',
      'tests/lib/pages.py': 'import lib.text\n',
      'tests/lib/text.py': '',
      'tests/not_code.py': '',
      'tests/commented.py': '',
      'up.py': '',
      'tests/json.py': '', // shadows the standard library: Python would load it
    });
    const found = await verifierModules(root, run('./tests/verify.py'));
    expect(found.files).toEqual([
      'tests/checks.py',
      'tests/helpers.py',
      'tests/inline_one.py',
      'tests/json.py',
      'tests/lib/__init__.py',
      'tests/lib/pages.py',
      'tests/lib/text.py',
      'tests/sibling.py',
      'tests/verify.py',
      'up.py',
    ]);
    expect(found.unresolved).toEqual([]);
  });

  it('pins bytecode without source and extension modules, which Python loads as they are', async () => {
    const root = repo({
      'verify.py': 'import fast\nimport compiled\n',
      'fast.cpython-311-x86_64-linux-gnu.so': '',
      'compiled.pyc': '',
    });
    expect((await verifierModules(root, run('python3 verify.py'))).files).toEqual([
      'compiled.pyc',
      'fast.cpython-311-x86_64-linux-gnu.so',
      'verify.py',
    ]);
  });

  it('follows -m, -c, PYTHONPATH and sys.path built from __file__', async () => {
    const root = repo({
      'tests/__init__.py': '',
      'tests/verify/__init__.py': '',
      'tests/verify/__main__.py':
        'import os, sys\nHERE = os.path.dirname(os.path.abspath(__file__))\nsys.path.insert(0, os.path.join(HERE, "..", "vendor"))\nimport vendored\n',
      'tests/vendor/vendored.py': '',
      'tools/shared.py': '',
      'inline_target.py': '',
    });
    expect((await verifierModules(root, run('python3 -m tests.verify'))).files).toEqual([
      'tests/__init__.py',
      'tests/vendor/vendored.py',
      'tests/verify/__init__.py',
      'tests/verify/__main__.py',
    ]);
    expect(
      (await verifierModules(root, run('python3', ['-c', 'import inline_target; import shared'], { PYTHONPATH: 'tools' }))).files,
    ).toEqual(['inline_target.py', 'tools/shared.py']);
  });

  it('names each load it cannot follow, with its line', () => {
    const loads = pythonLoads(
      [
        'import importlib, sys',
        "importlib.import_module('tests.checks')",
        'name = sys.argv[1]',
        'importlib.import_module(name)',
        '__import__(f"checks_{name}")',
        'sys.path.append(name)',
        "runpy.run_path(Path(__file__).parent / 'other.py')",
      ].join('\n'),
      'tests/verify.py',
    );
    expect(loads.filter((l) => l.kind !== 'module' || l.module !== 'importlib')).toEqual([
      { kind: 'module', module: 'sys', level: 0, names: [], line: 1 },
      { kind: 'module', module: 'tests.checks', level: 0, names: [], line: 2 },
      { kind: 'dynamic', text: 'import_module(name)', line: 4 },
      { kind: 'dynamic', text: '__import__("checks_{name}")', line: 5 },
      { kind: 'dynamic', text: 'sys.path.append(name)', line: 6 },
      { kind: 'file', path: 'tests/other.py', line: 7 },
    ]);
  });
});

describe('Node', () => {
  it('follows ESM, require, dynamic imports with literals, and package-internal #imports', async () => {
    const root = repo({
      'package.json': JSON.stringify({
        name: 'app',
        imports: { '#checks': { node: './tests/checks.mjs', default: './tests/fallback.mjs' } },
      }),
      'tests/verify.mjs': [
        "import { page } from './lib/page.js';",
        "import checks from '#checks';",
        'const data = require(`./data.json`);',
        'const lazy = await import(`./lazy.mjs`);',
        "const url = import.meta.resolve('./resolved.mjs');",
        "import { request } from 'undici';",
        "import fs from 'node:fs';",
      ].join('\n'),
      'tests/lib/page.ts': '',
      'tests/checks.mjs': '',
      'tests/fallback.mjs': '',
      'tests/data.json': '{}',
      'tests/lazy.mjs': '',
      'tests/resolved.mjs': '',
      'node_modules/undici/package.json': '{}',
    });
    const found = await verifierModules(root, run('node tests/verify.mjs'));
    expect(found.files).toEqual([
      'tests/checks.mjs',
      'tests/data.json',
      'tests/fallback.mjs',
      'tests/lazy.mjs',
      'tests/lib/page.ts',
      'tests/resolved.mjs',
      'tests/verify.mjs',
    ]);
    expect(found.packages).toEqual(['node_modules/undici']);
    expect(found.unresolved).toEqual([]);
  });

  it('follows --import preloads and refuses a specifier built at run time, naming the line', async () => {
    const root = repo({
      'tests/setup.mjs': 'const name = process.argv[2];\nawait import(`./checks-${name}.mjs`);\nconst load = require;\n',
      'tests/verify.mjs': '',
    });
    const found = await verifierModules(root, run('node --import ./tests/setup.mjs tests/verify.mjs'));
    expect(found.files).toEqual(['tests/setup.mjs', 'tests/verify.mjs']);
    expect(found.unresolved).toEqual([
      'tests/setup.mjs:2: `import(`./checks-${name}.mjs`)` names what it loads at run time, so it cannot be pinned; write it as a literal path or module name, or list the files it may load in verifier.inputs',
      'tests/setup.mjs:3: `load = require` names what it loads at run time, so it cannot be pinned; write it as a literal path or module name, or list the files it may load in verifier.inputs',
    ]);
  });
});

describe('shell', () => {
  it('follows source of literal and script-relative paths, and the files its commands name', async () => {
    const root = repo({
      'tests/verify.sh': [
        '#!/bin/sh',
        'DIR="$(cd "$(dirname "$0")" && pwd)"',
        '. ./tests/lib/common.sh',
        'source "$DIR/lib/extra.sh"',
        'exec python3 "$(dirname "$0")/check.py" "$@"',
      ].join('\n'),
      'tests/lib/common.sh': '',
      'tests/lib/extra.sh': '',
      'tests/check.py': 'import helper\n',
      'tests/helper.py': '',
    });
    const found = await verifierModules(root, run('./tests/verify.sh'));
    expect(found.files).toEqual(['tests/check.py', 'tests/helper.py', 'tests/lib/common.sh', 'tests/lib/extra.sh', 'tests/verify.sh']);
    expect(found.unresolved).toEqual([]);
  });

  it('refuses a source whose path is only known at run time', () => {
    expect(shellLoads('. "$HOME/lib.sh"\n', 'tests/verify.sh').sources).toEqual([{ target: null, text: '"$HOME/lib.sh"', line: 1 }]);
  });
});

describe('the command verifier’s locked inputs', () => {
  it('are its test’s helpers and its own modules, never the test itself; a verifier outside the repository adds none', async () => {
    const root = repo({ 'tests/verify.py': 'import checks\n', 'tests/checks.py': '', 'tests/add.md': '## Step 1\n' });
    expect(await commandLockedInputs(root, 'tests/add.md', run('./tests/verify.py'))).toEqual({
      files: ['tests/checks.py', 'tests/verify.py'],
      unresolved: [],
    });
    expect(await commandLockedInputs(root, 'tests/add.md', run('/usr/local/bin/verifier'))).toEqual({ files: [], unresolved: [] });
  });
});
