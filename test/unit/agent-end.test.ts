// Reading an attempt's agent end back from attempt.json, whose shape is untrusted (older records, hand edits).
import { describe, expect, it } from 'vitest';
import { agentReportsDollars, describeAgentEnd } from '../../src/reporters/agent-end.js';

describe('describeAgentEnd', () => {
  it('names the ending, the retried one and the cost', () => {
    expect(describeAgentEnd({ costUsd: 0.05, ending: { kind: 'finished', detail: 'success after 4 turn(s)' } })).toBe(
      'finished (success after 4 turn(s)); $0.05',
    );
    expect(
      describeAgentEnd({
        costUsd: null,
        ending: { kind: 'limit-reached', detail: 'error_max_turns' },
        retriedAfter: { kind: 'transient-api-error', detail: 'api_error_status 529' },
      }),
    ).toBe('limit-reached (error_max_turns), after one retry of transient-api-error (api_error_status 529); cost not reported');
  });

  it('names a turn Elenchos stopped, so every attempt of a run says why its agent ended', () => {
    expect(describeAgentEnd({ costUsd: null, ending: { kind: 'timed-out', detail: 'killed after agent.timeoutSeconds (30s)' } })).toBe(
      'timed-out (killed after agent.timeoutSeconds (30s)); cost not reported',
    );
    expect(describeAgentEnd({ costUsd: 0.02, ending: { kind: 'interrupted', detail: 'stopped by an interrupt' } })).toBe(
      'interrupted (stopped by an interrupt); $0.02',
    );
  });

  it('says nothing for records without an ending or with one it does not know', () => {
    expect(describeAgentEnd(null)).toBeNull();
    expect(describeAgentEnd({ costUsd: 1 })).toBeNull();
    expect(describeAgentEnd({ ending: { kind: 'exploded', detail: 'x' } })).toBeNull();
    expect(describeAgentEnd({ ending: 'finished' })).toBeNull();
    expect(describeAgentEnd({ ending: { kind: 'refused', detail: 7 } })).toBe('refused; cost not reported');
  });
});

describe('agentReportsDollars', () => {
  it('is false only when agents ran and none reported dollars', () => {
    expect(agentReportsDollars([{ agent: { costUsd: null } }, { agent: null }])).toBe(false);
    expect(agentReportsDollars([{ agent: { costUsd: null } }, { agent: { costUsd: 0 } }])).toBe(true);
    expect(agentReportsDollars([{ agent: null }, null])).toBe(true);
  });
});
