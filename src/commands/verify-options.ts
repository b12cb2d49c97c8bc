import type { GuardName } from '../states.js';

// The flags of `elenchos verify`, shared by its two actions (one task against a running app, or every task)
// without tying their files into a loop.
export interface VerifyCommandOptions {
  workers?: number;
  shard?: string;
  inPlace?: boolean;
  junit?: string;
  keep?: boolean;
  fresh?: boolean;
  verifierOnly?: boolean;
  url?: string;
  json?: boolean;
  evidence?: string;
  config?: string;
  lockBase?: string;
  maxKaneCredits?: number;
  maxMinutes?: number;
  headed?: boolean;
  grep?: string;
  debug?: boolean;
  /** `--require <guard,…>`: guards every verdict must stand on. */
  require?: GuardName[];
}
