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

/**
 * A run's totals (what nobody reported counts as 0 here; the attempts keep the nulls), except the agent's
 * dollars: null when agent dispatches ran and none reported any (Codex, Gemini CLI, a `command` agent),
 * an unknown amount, not $0.
 */
export type CostTotals = {
  agentUsd: number | null;
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

/** What steps under way elsewhere are expected to spend (a best-of run's other candidates: shared-budget.ts). */
export interface Pending {
  usd: number;
  credits: number;
}

const NOTHING_PENDING: Pending = { usd: 0, credits: 0 };

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
  private readonly total = { agentUsd: 0, agentTurns: 0, inputTokens: 0, outputTokens: 0, kaneCredits: 0 };
  private readonly last: Record<NextStep, { usd: number; credits: number; ms: number } | null> = { agent: null, verifier: null };
  private dispatches = 0;
  private dollarsReported = false;

  constructor(
    private readonly caps: BudgetCaps,
    private readonly startedAt: number,
  ) {}

  /** Adds an agent dispatch; returns the attempt's share. */
  recordAgent(spend: AgentSpend): Pick<AttemptCost, 'agentUsd' | 'agentTurns' | 'inputTokens' | 'outputTokens'> {
    this.total.agentUsd += spend.costUsd ?? 0;
    this.dispatches++;
    if (spend.costUsd !== null) this.dollarsReported = true;
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
    const unknown = this.dispatches > 0 && !this.dollarsReported;
    return { ...this.total, agentUsd: unknown ? null : round(this.total.agentUsd), kaneCredits: round(this.total.kaneCredits) };
  }

  /** What the next step of a kind is expected to spend: what the last one did (nothing known before the first). */
  estimate(next: NextStep): Pending {
    const last = this.last[next];
    return last ? { usd: last.usd, credits: last.credits } : NOTHING_PENDING;
  }

  /**
   * Why `next` may not start (one line naming the cap and the flag), or null. `pending`: what steps
   * already under way elsewhere are expected to spend, counted as spent.
   */
  gate(next: NextStep, now = Date.now(), pending: Pending = NOTHING_PENDING): string | null {
    const last = this.last[next];
    const { maxCostUsd, maxKaneCredits, maxMinutes } = this.caps;
    const usd = this.total.agentUsd + pending.usd;
    const credits = this.total.kaneCredits + pending.credits;
    const underWay = (what: string) => (what ? `, ${what} expected of steps under way` : '');
    const minutes = (now - this.startedAt) / 60_000;
    const expected = (ms: number) => (minutes + ms / 60_000).toFixed(1);
    if (maxMinutes !== undefined && (minutes >= maxMinutes || (last && minutes + last.ms / 60_000 > maxMinutes))) {
      return `the next ${next} step would pass --max-minutes ${maxMinutes} (${minutes.toFixed(1)} min spent${last ? `, about ${expected(last.ms)} after it` : ''})`;
    }
    if (maxCostUsd !== undefined && (usd >= maxCostUsd || (last && usd + last.usd > maxCostUsd))) {
      return `the next ${next} step would pass --max-cost-usd ${maxCostUsd} ($${round(this.total.agentUsd)} spent${underWay(pending.usd > 0 ? `$${round(pending.usd)}` : '')}${last && last.usd > 0 ? `, the last one cost $${round(last.usd)}` : ''})`;
    }
    if (maxKaneCredits !== undefined && (credits >= maxKaneCredits || (last && credits + last.credits > maxKaneCredits))) {
      return `the next ${next} step would pass --max-kane-credits ${maxKaneCredits} (${round(this.total.kaneCredits)} credits spent${underWay(pending.credits > 0 ? `${round(pending.credits)} credits` : '')}${last && last.credits > 0 ? `, the last verification used ${round(last.credits)}` : ''})`;
    }
    return null;
  }
}

function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}
