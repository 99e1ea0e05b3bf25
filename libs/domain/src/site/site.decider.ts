import { EventTypes, defineDecider } from '../decider';
import { DomainError, assertNever } from '../errors';
import { SiteCommand, SiteEvent, SiteState, initialSiteState } from './site.commands';

/** A site neither registered nor discovered (never, or no more) has nothing to act on. */
function unknownSite(state: SiteState, siteId: string): DomainError | undefined {
  if (state.status === 'deregistered')
    return new DomainError('SITE.DEREGISTERED', `Site ${siteId} has been deregistered`, {
      siteId,
    });
  if (state.status === 'unknown')
    return new DomainError('SITE.NOT_FOUND', `Site ${siteId} is not known`, { siteId });
  return undefined;
}

/** A registration with a join token that is not the site's unspent one; a retry with the spent one is accepted. */
function registrationRefusal(
  command: SiteCommand & { type: 'RegisterSite' },
  state: SiteState,
): DomainError | undefined {
  if (state.status !== 'deregistered' && state.registration?.joinTokenDigest === command.tokenDigest)
    return undefined; // the same registration again (its answer was lost): a no-op
  const details = { siteId: command.siteId };
  if (state.joinToken?.digest !== command.tokenDigest)
    return new DomainError(
      'AUTH.INVALID_FEDERATION_JOIN_TOKEN',
      'The federation join token is not valid',
      details,
    );
  if (Date.parse(state.joinToken.expiresAt) <= Date.parse(command.now))
    return new DomainError('AUTH.FEDERATION_JOIN_TOKEN_EXPIRED', 'The federation join token has expired', {
      ...details,
      expiresAt: state.joinToken.expiresAt,
    });
  return undefined;
}

/** A summary is taken only from a registered child presenting its own, current credential. */
function summaryRefusal(
  command: SiteCommand & { type: 'RecordSummary' },
  state: SiteState,
): DomainError | undefined {
  const unknown = unknownSite(state, command.siteId);
  if (unknown) return unknown;
  if (state.registration?.credentialDigest !== command.credentialDigest)
    return new DomainError('AUTH.INVALID_SITE_CREDENTIAL', 'Missing, expired or invalid site credential', {
      siteId: command.siteId,
    });
  return undefined;
}

/** Why a command on one site is refused, or undefined when it is accepted. */
export function validateSite(command: SiteCommand, state: SiteState): DomainError | undefined {
  switch (command.type) {
    case 'IssueJoinToken':
      if (state.registration)
        return new DomainError('SITE.ALREADY_REGISTERED', `Site ${command.siteId} is registered`, {
          siteId: command.siteId,
        });
      return undefined;
    case 'RegisterSite':
      return registrationRefusal(command, state);
    case 'RecordSummary':
      return summaryRefusal(command, state);
    case 'ObserveGossip':
    case 'CheckLiveness':
      return undefined;
    case 'DeregisterSite':
      return unknownSite(state, command.siteId);
    default:
      return assertNever(command);
  }
}

/** Hearing from a site: back online when it was offline. */
function heard(state: SiteState, siteId: string, seenAt: string): SiteEvent[] {
  return state.status === 'offline' ? [{ type: 'SiteCameOnline', data: { siteId, seenAt } }] : [];
}

function checkLiveness(command: SiteCommand & { type: 'CheckLiveness' }, state: SiteState): SiteEvent[] {
  if (state.status !== 'online') return [];
  const lastSeen = command.lastSeenAt ?? state.lastSeenAt ?? null;
  const silentFor = lastSeen ? Date.parse(command.now) - Date.parse(lastSeen) : Number.POSITIVE_INFINITY;
  if (silentFor <= command.ttlSeconds * 1000) return [];
  const data = { siteId: command.siteId, lastSeenAt: lastSeen, ttlSeconds: command.ttlSeconds };
  return [{ type: 'SiteWentOffline', data }];
}

function observeGossip(command: SiteCommand & { type: 'ObserveGossip' }, state: SiteState): SiteEvent[] {
  const { siteId, url, via, seenAt } = command;
  if (state.status === 'deregistered') return []; // removed by an operator: gossip does not bring it back
  if (state.discovered || state.registration) return heard(state, siteId, seenAt);
  return [{ type: 'SiteDiscovered', data: { siteId, url, via, discoveredAt: seenAt } }];
}

/** Decides which events an accepted command causes on one site. */
function decideAcceptedSite(command: SiteCommand, state: SiteState): SiteEvent[] {
  switch (command.type) {
    case 'IssueJoinToken': {
      const { siteId, tokenDigest, expiresAt } = command;
      return [{ type: 'SiteJoinTokenIssued', data: { siteId, tokenDigest, expiresAt } }];
    }
    case 'RegisterSite': {
      if (state.status !== 'deregistered' && state.registration?.joinTokenDigest === command.tokenDigest)
        return [];
      const { siteId, name, url, regions, tokenDigest, credentialDigest, now } = command;
      const data = {
        siteId,
        name,
        url,
        regions: [...regions],
        joinTokenDigest: tokenDigest,
        credentialDigest,
        registeredAt: now,
      };
      return [{ type: 'SiteRegistered', data }];
    }
    case 'RecordSummary':
      return heard(state, command.siteId, command.seenAt);
    case 'ObserveGossip':
      return observeGossip(command, state);
    case 'CheckLiveness':
      return checkLiveness(command, state);
    case 'DeregisterSite':
      return [{ type: 'SiteDeregistered', data: { siteId: command.siteId, reason: command.reason } }];
    default:
      return assertNever(command);
  }
}

/** Folds one site event into the state. */
export function evolveSite(state: SiteState, event: SiteEvent): SiteState {
  switch (event.type) {
    case 'SiteJoinTokenIssued': {
      const joinToken = { digest: event.data.tokenDigest, expiresAt: event.data.expiresAt };
      const status = state.status === 'unknown' || state.status === 'deregistered' ? 'invited' : state.status;
      return { ...state, status, joinToken };
    }
    case 'SiteRegistered':
      return {
        ...state,
        status: 'online',
        joinToken: undefined,
        registration: event.data,
        lastSeenAt: event.data.registeredAt,
      };
    case 'SiteDiscovered':
      return { ...state, status: 'online', discovered: event.data, lastSeenAt: event.data.discoveredAt };
    case 'SiteWentOffline':
      return { ...state, status: 'offline' };
    case 'SiteCameOnline':
      return { ...state, status: 'online', lastSeenAt: event.data.seenAt };
    case 'SiteDeregistered':
      return { status: 'deregistered' };
    default:
      return assertNever(event);
  }
}

/** The event types of a site stream. */
const SITE_EVENT_TYPES: EventTypes<SiteEvent> = {
  SiteJoinTokenIssued: true,
  SiteRegistered: true,
  SiteDiscovered: true,
  SiteWentOffline: true,
  SiteCameOnline: true,
  SiteDeregistered: true,
};

/** The site decider (federation members as this site knows them): initial state, validate, decide, evolve. */
export const siteDecider = defineDecider({
  initialState: initialSiteState,
  eventTypes: SITE_EVENT_TYPES,
  validate: validateSite,
  decideAccepted: decideAcceptedSite,
  evolve: evolveSite,
});

/** The site's relation to this one: a registered child, a gossip member, or neither (yet). */
export function siteRelation(state: SiteState): 'child' | 'member' | 'none' {
  if (state.registration) return 'child';
  return state.discovered ? 'member' : 'none';
}
