// Picks a verifier adapter by type; adapters load lazily so `elenchos --version` stays fast.
import type { VerifierType } from '../contract/task-schema.js';
import type { VerifierAdapter } from './types.js';

const loaders: Record<VerifierType, () => Promise<VerifierAdapter>> = {
  kane: async () => (await import('./kane/adapter.js')).kaneAdapter,
  playwright: async () => (await import('./playwright/adapter.js')).playwrightAdapter,
  command: async () => (await import('./command/adapter.js')).commandAdapter,
};

/** The adapter for `type`. */
export function loadVerifier(type: VerifierType): Promise<VerifierAdapter> {
  return loaders[type]();
}
