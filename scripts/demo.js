#!/usr/bin/env node
// `npm run demo`: a scripted agent adds task priorities to a tiny todo app, with a bug on its first try;
// Elenchos runs it in a worktree, Playwright in a real Chromium fails the criterion, the agent repairs it.
// Options: --task <id> (priority-badge, delete-task, add-task), --dir <empty dir>, --json, --quiet, --keep.
import { runDemo } from './demo-lib.js';

process.exitCode = await runDemo({ argv: process.argv.slice(2), config: null, label: 'playwright' });
