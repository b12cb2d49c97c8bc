// `elenchos report`: gathers one run's evidence into a self-contained HTML file outside the run folder.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { verifyManifest } from '../evidence/manifest.js';
import { attemptDir, elenchosDir } from '../evidence/layout.js';
import { renderHtmlReport } from '../reporters/html-report.js';
import { showStoredRun } from './inspect-runs.js';

const SHOWN_FILES = ['prompt.md', 'agent.log', 'app.log', 'setup.log', 'verifier/stderr.log', 'workspace/diff.patch', 'base-probe/setup.log', 'base-probe/app.log'];
const MAX_TEXT = 64 * 1024;

/** Writes the report (default `.elenchos/reports/<run-id>.html`, so the run's manifest stays exact); returns its path. */
export async function writeReport(options: { cwd: string; runId: string; out?: string; signingKey?: string }): Promise<string> {
  const shown = await showStoredRun(options.cwd, options.runId);
  const texts = new Map<number, { name: string; text: string }[]>();
  for (const summary of shown.record.attempts) {
    const dir = attemptDir(shown.dir, summary.number);
    const files: { name: string; text: string }[] = [];
    for (const name of SHOWN_FILES) {
      const text = await readFile(path.join(dir, name), 'utf8').catch(() => null);
      if (text === null || text === '') continue;
      files.push({ name, text: text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}\n… (${text.length - MAX_TEXT} more characters in ${name})` : text });
    }
    texts.set(summary.number, files);
  }
  const manifest = await verifyManifest(shown.dir, { signingKey: options.signingKey }).catch(() => null);
  const html = renderHtmlReport({ record: shown.record, attempts: shown.attempts, texts, manifest, needsHuman: shown.needsHuman });
  const out = options.out ? path.resolve(options.cwd, options.out) : path.join(elenchosDir(shown.root), 'reports', `${shown.record.runId}.html`);
  await mkdir(path.dirname(out), { recursive: true });
  await writeFile(out, html);
  return out;
}
