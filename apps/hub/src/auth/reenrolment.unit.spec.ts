import { randomUUID } from 'node:crypto';
import { AgentCredentials } from './agent-credentials';

describe('who may register a known node again', () => {
  const credentials = new AgentCredentials('spec-secret-0123456789-0123456789');
  const nodeId = randomUUID();
  const now = new Date('2026-11-26T04:00:00Z');
  const token = credentials.issueReenrolment(nodeId, new Date(now.getTime() + 3600_000));

  it.each([
    ['its own credential', credentials.issue(nodeId), true],
    ['an unexpired re-enrolment token for it', token, true],
    ['no token', undefined, false],
    ["another node's credential", credentials.issue(randomUUID()), false],
    [
      'a token for another node',
      credentials.issueReenrolment(randomUUID(), new Date(now.getTime() + 3600_000)),
      false,
    ],
    ['an expired token', credentials.issueReenrolment(nodeId, new Date(now.getTime() - 1000)), false],
    [
      'a token with its expiry moved',
      token.replace(/\.(\d+)\./, (_m, e: string) => `.${Number(e) + 3600}.`),
      false,
    ],
    [
      'a token signed with another secret',
      new AgentCredentials('x'.repeat(40)).issueReenrolment(nodeId, new Date(now.getTime() + 3600_000)),
      false,
    ],
  ])('%s: %s', (_what, presented, allowed) => {
    expect(credentials.mayReregister(presented, nodeId, now)).toBe(allowed);
  });
});
