// Keeps every trace and screenshot a report points at inside the evidence directory.
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { JsonReport } from './json-report.js';
import { playwrightPaths } from '../../evidence/layout.js';

/**
 * Attachments Playwright wrote under `outputDir` are already evidence; any other file a test attached
 * (from elsewhere on disk) is copied to `<evidenceDir>/playwright/attachments/`, and the report's path
 * is rewritten to the copy. Attachments held in memory (no path) are left as they are.
 */
export async function keepAttachments(report: JsonReport, evidenceDir: string): Promise<void> {
  const inside = path.resolve(evidenceDir) + path.sep;
  const target = playwrightPaths(evidenceDir).attachmentsDir;
  let n = 0;
  for (const test of report.tests) {
    for (const result of test.results) {
      for (const attachment of result.attachments) {
        if (!attachment.path || path.resolve(attachment.path).startsWith(inside)) continue;
        const copy = path.join(target, `${++n}-${path.basename(attachment.path)}`);
        try {
          await mkdir(target, { recursive: true });
          await copyFile(attachment.path, copy);
          attachment.path = copy;
        } catch {
          // the file is gone: keep the original path so the finding still says what was attached
        }
      }
    }
  }
}
