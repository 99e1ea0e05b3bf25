import { randomUUID } from 'node:crypto';
import { AgentCredentials } from './agent-credentials';

describe('per-node bootstrap tokens', () => {
  const credentials = new AgentCredentials('spec-secret-0123456789-0123456789');
  const nodeId = randomUUID();
  const now = new Date('2026-11-26T04:00:00Z');
  const expiresAt = Math.floor(now.getTime() / 1000) + 3600;
  const token = credentials.issueBootstrap({ nodeId, domainId: 'site-a', expiresAt });
  const payloadOf = (t: string): string => t.split('.')[1];
  const withPayload = (claims: object): string =>
    token.replace(payloadOf(token), Buffer.from(JSON.stringify(claims)).toString('base64url'));

  it('gives the claims of a genuine unexpired token', () => {
    expect(credentials.bootstrapClaims(token, now)).toEqual({ nodeId, domainId: 'site-a', expiresAt });
  });

  it.each([
    ['an expired token', credentials.issueBootstrap({ nodeId, expiresAt: expiresAt - 7200 })],
    ['claims changed after signing (another node)', withPayload({ nodeId: randomUUID(), expiresAt })],
    ['claims changed after signing (later expiry)', withPayload({ nodeId, expiresAt: expiresAt + 99999 })],
    [
      'a token signed with another secret',
      new AgentCredentials('x'.repeat(40)).issueBootstrap({ nodeId, expiresAt }),
    ],
    ["a node's credential", credentials.issue(nodeId)],
    ['a re-enrolment token', credentials.issueReenrolment(nodeId, new Date(expiresAt * 1000))],
    ['a token with an extra part', `${token}.x`],
    ['garbage', 'boot.%%%.x'],
  ])('refuses %s', (_what, presented) => {
    expect(credentials.bootstrapClaims(presented, now)).toBeUndefined();
  });
});
