import {
  HcnError,
  parseOrThrow,
  sameSecret,
  siteIdSchema,
  siteSummarySchema,
  siteUrlSchema,
} from '@hcn/contracts';
import { createHmac } from 'node:crypto';
import { z } from 'zod';

/** Most members one gossip message carries. */
export const MAX_GOSSIP_MEMBERS = 2000;

/**
 * One member as gossip carries it: its id, address, heartbeat (its own growing liveness counter), hops left, and the
 * version of its summary (grown by the member itself when its summary changes materially; 0: none yet). The summary
 * itself travels only with a change (a rumour, a bounded number of rounds) or when the other side lacks it
 * (anti-entropy); without it an entry is a heartbeat and a digest line (member -> version).
 */
export const gossipMemberSchema = z
  .object({
    siteId: siteIdSchema,
    url: siteUrlSchema,
    heartbeat: z.number().int().nonnegative(),
    hops: z.number().int().min(0).max(32),
    version: z.number().int().nonnegative(),
    summary: siteSummarySchema.optional(),
  })
  .strict();

/** A member as gossip carries it. */
export type GossipMember = z.output<typeof gossipMemberSchema>;

/**
 * What a gossip message says: who sends it, and its kind. `push`: heartbeats and summary rumours (answered with a
 * count). `sync` (anti-entropy): the sender's digest, every live member without summaries, answered with a `reply`:
 * the answering site's digest with the summaries the sender lacks or has older, and in `want` the members whose newer
 * summaries the sender holds (it sends them next, as a `reply`: a delta, taken but not pushed on).
 */
export const gossipPayloadSchema = z
  .object({
    from: siteIdSchema,
    kind: z.enum(['push', 'sync', 'reply']),
    members: z.array(gossipMemberSchema).max(MAX_GOSSIP_MEMBERS),
    want: z.array(siteIdSchema).max(MAX_GOSSIP_MEMBERS).optional(),
  })
  .strict();

/** A gossip message's content. */
export type GossipPayload = z.output<typeof gossipPayloadSchema>;

/** A signed gossip message: the payload as JSON text, when it was sent (ms) and the MAC over both. */
export const gossipEnvelopeSchema = z
  .object({
    payload: z.string().max(16 * 2 ** 20),
    sentAt: z.number().int().nonnegative(),
    mac: z.string().max(200),
  })
  .strict();

/** A signed gossip message. */
export type GossipEnvelope = z.output<typeof gossipEnvelopeSchema>;

/** HMAC-SHA256 (base64url) of a signed federation message: its purpose, when it was sent (ms) and its text. */
export function federationMac(secret: string, purpose: string, sentAt: number, payload: string): string {
  return createHmac('sha256', secret).update(`${purpose}|${sentAt}|${payload}`).digest('base64url');
}

function macOf(secret: string, sentAt: number, payload: string): string {
  return federationMac(secret, 'hcn-gossip', sentAt, payload);
}

/** Signs a payload with the federation's gossip secret. */
export function sealGossip(secret: string, payload: GossipPayload, now: Date): GossipEnvelope {
  const text = JSON.stringify(payload);
  const sentAt = now.getTime();
  return { payload: text, sentAt, mac: macOf(secret, sentAt, text) };
}

/**
 * The payload of a genuine, fresh gossip message: its MAC checked with the shared secret (AUTH.INVALID_GOSSIP_SIGNATURE),
 * its time within `maxSkewMs` of now (AUTH.GOSSIP_STALE), its content validated (FEDERATION.GOSSIP_MALFORMED).
 */
export function openGossip(
  secret: string,
  envelope: GossipEnvelope,
  now: Date,
  maxSkewMs: number,
): GossipPayload {
  if (!sameSecret(envelope.mac, macOf(secret, envelope.sentAt, envelope.payload)))
    throw new HcnError(
      'AUTH.INVALID_GOSSIP_SIGNATURE',
      'The gossip message is not signed with the federation secret',
    );
  if (Math.abs(now.getTime() - envelope.sentAt) > maxSkewMs)
    throw new HcnError('AUTH.GOSSIP_STALE', 'The gossip message is too old or from the future', {
      sentAt: envelope.sentAt,
      maxSkewMs,
    });
  let json: unknown;
  try {
    json = JSON.parse(envelope.payload);
  } catch {
    throw new HcnError('FEDERATION.GOSSIP_MALFORMED', 'The gossip payload is not JSON');
  }
  return parseOrThrow(gossipPayloadSchema, json, 'FEDERATION.GOSSIP_MALFORMED', 'Gossip payload');
}
