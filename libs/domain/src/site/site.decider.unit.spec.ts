import { DomainError } from '../errors';
import { specFor } from '../testing';
import type { SiteCommand, SiteEvent } from './site.commands';
import { siteDecider, siteRelation } from './site.decider';
import { fold } from '../decider';

const siteId = 'child-a';
const digest = (c: string) => c.repeat(64);
const issued: SiteEvent = {
  type: 'SiteJoinTokenIssued',
  data: { siteId, tokenDigest: digest('a'), expiresAt: '2030-01-01T01:00:00.000Z' },
};
const register: SiteCommand = {
  type: 'RegisterSite',
  siteId,
  name: 'Child A',
  url: 'https://child-a.example:8443',
  regions: ['eu-west'],
  tokenDigest: digest('a'),
  credentialDigest: digest('c'),
  now: '2030-01-01T00:00:00.000Z',
};
const registered: SiteEvent = {
  type: 'SiteRegistered',
  data: {
    siteId,
    name: 'Child A',
    url: 'https://child-a.example:8443',
    regions: ['eu-west'],
    joinTokenDigest: digest('a'),
    credentialDigest: digest('c'),
    registeredAt: '2030-01-01T00:00:00.000Z',
  },
};
const offline: SiteEvent = {
  type: 'SiteWentOffline',
  data: { siteId, lastSeenAt: '2030-01-01T00:00:00.000Z', ttlSeconds: 30 },
};
const deregistered: SiteEvent = { type: 'SiteDeregistered', data: { siteId, reason: 'retired' } };
const summary = (credentialDigest: string): SiteCommand => ({
  type: 'RecordSummary',
  siteId,
  credentialDigest,
  seenAt: '2030-01-01T00:05:00.000Z',
});
const gossip: SiteCommand = {
  type: 'ObserveGossip',
  siteId,
  url: 'http://127.0.0.1:9001',
  via: 'peer-b',
  seenAt: '2030-01-01T00:00:10.000Z',
};
const given = specFor(siteDecider);

function errorCode(result: ReturnType<ReturnType<typeof given>['when']>): string | undefined {
  return 'error' in result && result.error instanceof DomainError ? result.error.code : undefined;
}

describe('site decider', () => {
  describe('join tokens and registration', () => {
    it('issues a join token for an unknown site, and a newer one replaces it', () => {
      const command: SiteCommand = {
        type: 'IssueJoinToken',
        siteId,
        tokenDigest: digest('b'),
        expiresAt: '2030-02-01T00:00:00.000Z',
      };
      expect(given([]).when(command)).toEqual({
        events: [
          {
            type: 'SiteJoinTokenIssued',
            data: { siteId, tokenDigest: digest('b'), expiresAt: '2030-02-01T00:00:00.000Z' },
          },
        ],
      });
      const state = fold(siteDecider, [
        issued,
        { type: 'SiteJoinTokenIssued', data: { ...issued.data, tokenDigest: digest('b') } },
      ]);
      expect([state.status, state.joinToken?.digest]).toEqual(['invited', digest('b')]);
      expect(
        errorCode(
          given([
            issued,
            { type: 'SiteJoinTokenIssued', data: { ...issued.data, tokenDigest: digest('b') } },
          ]).when(register),
        ),
      ).toBe('AUTH.INVALID_FEDERATION_JOIN_TOKEN');
    });
    it('refuses a join token for a site registered already', () => {
      const command: SiteCommand = {
        type: 'IssueJoinToken',
        siteId,
        tokenDigest: digest('b'),
        expiresAt: '2030-02-01T00:00:00.000Z',
      };
      expect(errorCode(given([issued, registered]).when(command))).toBe('SITE.ALREADY_REGISTERED');
    });
    it('registers with the unspent token, which it spends', () => {
      expect(given([issued]).when(register)).toEqual({ events: [registered] });
      const state = fold(siteDecider, [issued, registered]);
      expect([state.status, state.joinToken, siteRelation(state)]).toEqual(['online', undefined, 'child']);
    });
    it('takes the same registration again as a no-op (the answer was lost), not another token', () => {
      expect(given([issued, registered]).when(register)).toEqual({ events: [] });
      expect(errorCode(given([issued, registered]).when({ ...register, tokenDigest: digest('e') }))).toBe(
        'AUTH.INVALID_FEDERATION_JOIN_TOKEN',
      );
    });
    it('refuses an unknown token, a wrong one and an expired one', () => {
      expect(errorCode(given([]).when(register))).toBe('AUTH.INVALID_FEDERATION_JOIN_TOKEN');
      expect(errorCode(given([issued]).when({ ...register, tokenDigest: digest('f') }))).toBe(
        'AUTH.INVALID_FEDERATION_JOIN_TOKEN',
      );
      expect(errorCode(given([issued]).when({ ...register, now: '2030-01-01T01:00:00.000Z' }))).toBe(
        'AUTH.FEDERATION_JOIN_TOKEN_EXPIRED',
      );
    });
    it('lets a deregistered site be invited and registered again, voiding the old credential', () => {
      const again: SiteEvent = {
        type: 'SiteJoinTokenIssued',
        data: { ...issued.data, tokenDigest: digest('b') },
      };
      const history = [issued, registered, deregistered, again];
      expect(errorCode(given(history).when(register))).toBe('AUTH.INVALID_FEDERATION_JOIN_TOKEN');
      const second = { ...register, tokenDigest: digest('b'), credentialDigest: digest('d') };
      expect(given(history).when(second)).toEqual({
        events: [
          {
            type: 'SiteRegistered',
            data: { ...registered.data, joinTokenDigest: digest('b'), credentialDigest: digest('d') },
          },
        ],
      });
      const reRegistered: SiteEvent = {
        type: 'SiteRegistered',
        data: { ...registered.data, joinTokenDigest: digest('b'), credentialDigest: digest('d') },
      };
      expect(errorCode(given([...history, reRegistered]).when(summary(digest('c'))))).toBe(
        'AUTH.INVALID_SITE_CREDENTIAL',
      );
    });
  });

  describe('summaries and liveness', () => {
    it('takes a summary with the current credential: nothing on an online site, back online when offline', () => {
      expect(given([issued, registered]).when(summary(digest('c')))).toEqual({ events: [] });
      expect(given([issued, registered, offline]).when(summary(digest('c')))).toEqual({
        events: [{ type: 'SiteCameOnline', data: { siteId, seenAt: '2030-01-01T00:05:00.000Z' } }],
      });
    });
    it('refuses summaries of unknown, deregistered, merely invited or gossip-only sites and foreign credentials', () => {
      expect(errorCode(given([]).when(summary(digest('c'))))).toBe('SITE.NOT_FOUND');
      expect(errorCode(given([issued, registered, deregistered]).when(summary(digest('c'))))).toBe(
        'SITE.DEREGISTERED',
      );
      expect(errorCode(given([issued]).when(summary(digest('c'))))).toBe('AUTH.INVALID_SITE_CREDENTIAL');
      const discovered: SiteEvent = {
        type: 'SiteDiscovered',
        data: { siteId, url: gossip.url, via: 'peer-b', discoveredAt: gossip.seenAt },
      };
      expect(errorCode(given([discovered]).when(summary(digest('c'))))).toBe('AUTH.INVALID_SITE_CREDENTIAL');
      expect(errorCode(given([issued, registered]).when(summary(digest('9'))))).toBe(
        'AUTH.INVALID_SITE_CREDENTIAL',
      );
    });
    it('goes offline only when silent for longer than the TTL, once', () => {
      const check = (now: string): SiteCommand => ({
        type: 'CheckLiveness',
        siteId,
        now,
        ttlSeconds: 30,
        lastSeenAt: null,
      });
      expect(given([issued, registered]).when(check('2030-01-01T00:00:30.000Z'))).toEqual({ events: [] });
      expect(given([issued, registered]).when(check('2030-01-01T00:00:30.001Z'))).toEqual({
        events: [offline],
      });
      expect(given([issued, registered, offline]).when(check('2030-01-01T00:09:00.000Z'))).toEqual({
        events: [],
      });
      const recent: SiteCommand = {
        type: 'CheckLiveness',
        siteId,
        now: '2030-01-01T00:01:00.000Z',
        ttlSeconds: 30,
        lastSeenAt: '2030-01-01T00:00:45.000Z',
      };
      expect(given([issued, registered]).when(recent)).toEqual({ events: [] });
    });
  });

  describe('gossip membership', () => {
    const discovered: SiteEvent = {
      type: 'SiteDiscovered',
      data: { siteId, url: gossip.url, via: 'peer-b', discoveredAt: gossip.seenAt },
    };
    it('records a site gossip names for the first time, then only its returns', () => {
      expect(given([]).when(gossip)).toEqual({ events: [discovered] });
      expect(given([discovered]).when(gossip)).toEqual({ events: [] });
      expect(given([discovered, offline]).when(gossip)).toEqual({
        events: [{ type: 'SiteCameOnline', data: { siteId, seenAt: gossip.seenAt } }],
      });
      expect(siteRelation(fold(siteDecider, [discovered]))).toBe('member');
    });
    it('never brings back a deregistered site, and a known child is not discovered again', () => {
      expect(given([discovered, deregistered]).when(gossip)).toEqual({ events: [] });
      expect(given([issued, registered]).when(gossip)).toEqual({ events: [] });
    });
  });

  describe('DeregisterSite', () => {
    const command: SiteCommand = { type: 'DeregisterSite', siteId, reason: 'retired' };
    it('deregisters a known site once', () => {
      expect(given([issued, registered]).when(command)).toEqual({ events: [deregistered] });
      expect(errorCode(given([issued, registered, deregistered]).when(command))).toBe('SITE.DEREGISTERED');
      expect(errorCode(given([]).when(command))).toBe('SITE.NOT_FOUND');
    });
  });
});
