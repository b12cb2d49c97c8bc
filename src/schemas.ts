// Renders the published JSON Schemas from the zod schemas.
import * as z from 'zod';
import { ConfigSchema } from './config/config-schema.js';
import { TaskSchema } from './contract/task-schema.js';
import { RunRecordSchema } from './evidence/run-record.js';
import { AttemptFileSchema } from './evidence/attempt-record.js';
import { TestLockSchema } from './contract/test-lock-schema.js';
import { ShardMetadataSchema } from './core/verify/shard-metadata-schema.js';

const BASE = 'https://elenchos.dev/schemas';

/** File name → JSON text of every published schema. */
export function renderSchemas(): Record<string, string> {
  const render = (schema: z.ZodType, id: string, title: string) =>
    `${JSON.stringify({ $id: `${BASE}/${id}`, title, ...z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) }, null, 2)}\n`;
  return {
    'task.schema.json': render(TaskSchema, 'task.schema.json', 'Elenchos task contract'),
    'config.schema.json': render(ConfigSchema, 'config.schema.json', 'Elenchos configuration (elenchos.config.json)'),
    'test-lock.schema.json': render(TestLockSchema, 'test-lock.schema.json', 'Elenchos test lock (<task>.lock.json)'),
    'run.schema.json': render(RunRecordSchema, 'run.schema.json', 'Elenchos run record (.elenchos/runs/<run-id>/run.json)'),
    'attempt.schema.json': render(
      AttemptFileSchema,
      'attempt.schema.json',
      'Elenchos attempt record (.elenchos/runs/<run-id>/attempts/<NN>/attempt.json)',
    ),
    'shard-metadata.schema.json': render(
      ShardMetadataSchema,
      'shard-metadata.schema.json',
      'Elenchos shard metadata (the "metadata" of elenchos verify --json and merge --json)',
    ),
  };
}
