// `.elenchos/acks/<task-id>/<time>.json`: who looked at a task flagged NEEDS_HUMAN, kept as evidence.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { readJsonFile } from '../util/json-file.js';
import { acksDir } from './layout.js';

export { acksDir };
import { writeJsonAtomic } from './write-json.js';

export const AckSchema = z.looseObject({
  schemaVersion: z.literal(1),
  taskId: z.string().min(1),
  taskFile: z.string(),
  by: z.string().min(1),
  at: z.iso.datetime({ offset: true }),
  note: z.string().nullable(),
  /** Runs up to and including this id are acknowledged (run ids sort by time). */
  upToRunId: z.string().min(1),
  /** Why the task needed a human when it was acknowledged. */
  reasons: z.array(z.string()),
});

export type Ack = z.infer<typeof AckSchema>;

/** Every readable acknowledgement, oldest first; an unreadable one counts as no acknowledgement. */
export async function readAcks(root: string): Promise<Ack[]> {
  const acks: Ack[] = [];
  const tasks = await readdir(acksDir(root)).catch(() => [] as string[]);
  for (const task of tasks.sort()) {
    const files = await readdir(path.join(acksDir(root), task)).catch(() => [] as string[]);
    for (const file of files.filter((f) => f.endsWith('.json')).sort()) {
      try {
        const parsed = AckSchema.safeParse((await readJsonFile(path.join(acksDir(root), task, file))).value);
        if (parsed.success) acks.push(parsed.data);
      } catch {
        // A broken acknowledgement acknowledges nothing: the flag stays until a readable one is written.
      }
    }
  }
  return acks.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

/** Stores an acknowledgement; never overwrites an earlier one. */
export async function writeAck(root: string, ack: Ack): Promise<string> {
  const file = path.join(acksDir(root), ack.taskId, `${ack.at.replace(/[:.]/g, '-')}.json`);
  await writeJsonAtomic(file, ack);
  return file;
}
