// Cost accounting and caps: what a run spent (agent dollars, tokens, turns; Kane credits; minutes) and
// whether the next step may start without passing a cap.

/** What one attempt spent; null where the tool did not say. */
export type AttemptCost = {
  agentUsd: number | null;
  agentTurns: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  kaneCredits: number | null;
};

/** A run's totals (what nobody reported counts as 0 here; the attempts keep the nulls). */
export type CostTotals = {
  agentUsd: number;
  agentTurns: number;
  inputTokens: number;
  outputTokens: number;
  kaneCredits: number;
};

export interface BudgetCaps {
  maxCostUsd?: number;
  maxKaneCredits?: number;
  maxMinutes?: number;
}

export type NextStep = 'agent' | 'verifier';

/** What the agent adapter reported of one dispatch. */
export interface AgentSpend {
  costUsd: number | null;
  turns: number | null;
  tokens?: { input: number; output: number } | null;
  durationMs: number;
}

/**
 * Keeps the run's totals and refuses a next step that would pass a cap. "Would pass": the totals so far
 * plus what the last step of the same kind cost (the best estimate of the next one) exceed the cap.
 * A step already under way is not cut short: the agent's and the verifier's own timeouts bound it.
 */
export class BudgetTracker {
  private readonly total: CostTotals = { agentUsd: 0, agentTurns: 0, inputTokens: 0, outputTokens: 0, kaneCredits: 0 };
  private readonly last: Record<NextStep, { usd: number; credits: number; ms: number } | null> = { agent: null, verifier: null };

  constructor(
    private readonly caps: BudgetCaps,
    private readonly startedAt: number,
  ) {}

  /** Adds an agent dispatch; returns the attempt's share. */
  recordAgent(spend: AgentSpend): Pick<AttemptCost, 'agentUsd' | 'agentTurns' | 'inputTokens' | 'outputTokens'> {
    this.total.agentUsd += spend.costUsd ?? 0;
    this.total.agentTurns += spend.turns ?? 0;
    this.total.inputTokens += spend.tokens?.input ?? 0;
    this.total.outputTokens += spend.tokens?.output ?? 0;
    this.last.agent = { usd: spend.costUsd ?? 0, credits: 0, ms: spend.durationMs };
    return {
      agentUsd: spend.costUsd,
      agentTurns: spend.turns,
      inputTokens: spend.tokens?.input ?? null,
      outputTokens: spend.tokens?.output ?? null,
    };
  }

  /** Adds a verification (Kane reports credits; other verifiers none). */
  recordVerifier(credits: number | null, durationMs: number): void {
    this.total.kaneCredits += credits ?? 0;
    this.last.verifier = { usd: 0, credits: credits ?? 0, ms: durationMs };
  }

  totals(): CostTotals {
    return { ...this.total, agentUsd: round(this.total.agentUsd), kaneCredits: round(this.total.kaneCredits) };
  }

  /** Why `next` may not start (one line naming the cap and the flag), or null. */
  gate(next: NextStep, now = Date.now()): string | null {
    const last = this.last[next];
    const { maxCostUsd, maxKaneCredits, maxMinutes } = this.caps;
    const minutes = (now - this.startedAt) / 60_000;
    const expected = (ms: number) => (minutes + ms / 60_000).toFixed(1);
    if (maxMinutes !== undefined && (minutes >= maxMinutes || (last && minutes + last.ms / 60_000 > maxMinutes))) {
      return `the next ${next} step would pass --max-minutes ${maxMinutes} (${minutes.toFixed(1)} min spent${last ? `, about ${expected(last.ms)} after it` : ''})`;
    }
    if (maxCostUsd !== undefined && (this.total.agentUsd >= maxCostUsd || (last && this.total.agentUsd + last.usd > maxCostUsd))) {
      return `the next ${next} step would pass --max-cost-usd ${maxCostUsd} ($${round(this.total.agentUsd)} spent${last && last.usd > 0 ? `, the last one cost $${round(last.usd)}` : ''})`;
    }
    if (
      maxKaneCredits !== undefined &&
      (this.total.kaneCredits >= maxKaneCredits || (last && this.total.kaneCredits + last.credits > maxKaneCredits))
    ) {
      return `the next ${next} step would pass --max-kane-credits ${maxKaneCredits} (${round(this.total.kaneCredits)} credits spent${last && last.credits > 0 ? `, the last verification used ${round(last.credits)}` : ''})`;
    }
    return null;
  }
}

function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}
