// The one sha256 helper: contract locks, run records and the setup cache hash with it.
import { createHash } from 'node:crypto';

/** sha256 hex of bytes (a string is hashed as UTF-8). */
export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}
