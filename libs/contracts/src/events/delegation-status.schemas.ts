import { z } from 'zod';
import { namespaceSchema } from './resources.schemas';
import { siteIdSchema } from './site.events';
import { delegationIdSchema } from './delegation.schemas';

/**
 * Where a delegated workload stands on the site that runs it, as that site reports it to the delegating one:
 * admitted and waiting or placed there (`accepted`), running, or ended (completed, failed, lost, stopped).
 */
export const delegationStatusSchema = z.enum([
  'accepted',
  'running',
  'completed',
  'failed',
  'lost',
  'stopped',
]);

/** Where a delegated workload stands on the site that runs it. */
export type DelegationStatus = z.output<typeof delegationStatusSchema>;

/**
 * A status report of a delegated workload (`POST /v1/federation/delegations/:delegationId/status` on the delegating
 * site, signed with the credential the two share): the reporting site, the delegating site's workload and the
 * reporting site's own, the status as of `revision` of its workload stream (the event `eventId` and its hash, so a
 * repeat of a report is recognised and the delegating site's log anchors the other stream), and what the status carries (pid, readiness of a service, exit code, signal, reason).
 */
export const delegationStatusReportSchema = z
  .object({
    delegationId: delegationIdSchema,
    siteId: siteIdSchema,
    parentWorkloadId: z.string().uuid(),
    workloadId: z.string().uuid(),
    revision: z.number().int().nonnegative(),
    eventId: z.string().uuid(),
    /** That event's hash-chain link (the reporting site's stream head at `revision`), kept by the delegating site. */
    hash: z.string().max(128).optional(),
    status: delegationStatusSchema,
    at: z.string().datetime({ offset: true }),
    pid: z.number().int().optional(),
    ready: z.boolean().optional(),
    exitCode: z.number().int().nullable().optional(),
    signal: z.string().max(16).nullable().optional(),
    reason: z.string().max(2000).optional(),
  })
  .strict();

/** A status report of a delegated workload. */
export type DelegationStatusReport = z.output<typeof delegationStatusReportSchema>;

/**
 * The delegating site's answer to a status report: the events it recorded (none for a repeat), and what the
 * reporting site is to do with its workload: go on, stop it (the delegating site asked for a stop), or cancel it (the
 * delegating site no longer runs the delegation there: it fell back elsewhere, or gave the delegation up).
 */
export const delegationStatusAnswerSchema = z
  .object({
    delegationId: delegationIdSchema,
    action: z.enum(['continue', 'stop', 'cancel']),
    recorded: z.array(z.string()),
  })
  .strict();

/** The delegating site's answer to a status report. */
export type DelegationStatusAnswer = z.output<typeof delegationStatusAnswerSchema>;

/**
 * What a delegating site asks of the site running its delegation
 * (`POST /v1/federation/delegations/:delegationId/control` there, signed): its current status, a stop (the user
 * stopped, restarted or deleted the workload) or a cancel (the delegating site fell back or gave it up).
 */
export const delegationControlSchema = z
  .object({
    delegationId: delegationIdSchema,
    parentSiteId: siteIdSchema,
    namespace: namespaceSchema,
    action: z.enum(['status', 'stop', 'cancel']),
    reason: z.string().max(500),
  })
  .strict();

/** A control request of a delegating site. */
export type DelegationControl = z.output<typeof delegationControlSchema>;

/**
 * The answer to a control request: the delegated workload's status after it, as a status report signed as the
 * reporting site signs its reports (JSON text, when, MAC), so the delegating site records it as any report; a stop's
 * effect follows in later reports.
 */
export const delegationControlAnswerSchema = z
  .object({
    delegationId: delegationIdSchema,
    report: z
      .object({
        payload: z.string().max(2 ** 20),
        sentAt: z.number().int().nonnegative(),
        mac: z.string().max(200),
      })
      .strict(),
  })
  .strict();

/** The answer to a control request. */
export type DelegationControlAnswer = z.output<typeof delegationControlAnswerSchema>;

/**
 * A delegating site asks for the output of a delegation it made (`POST /v1/federation/delegations/:id/logs` on the
 * site running it, signed): the last `lines` of each of that site's current allocations of it, one stream or both.
 */
export const delegationLogsRequestSchema = z
  .object({
    delegationId: delegationIdSchema,
    parentSiteId: siteIdSchema,
    namespace: namespaceSchema,
    lines: z.number().int().min(1).max(10_000),
    stream: z.enum(['stdout', 'stderr']).optional(),
  })
  .strict();

/** A request for a delegation's output. */
export type DelegationLogsRequest = z.output<typeof delegationLogsRequestSchema>;

/** The output of a delegation: the running site's workload and its lines, in the order its log store keeps them. */
export const delegationLogsAnswerSchema = z
  .object({
    delegationId: delegationIdSchema,
    workloadId: z.string().uuid(),
    lines: z.array(z.object({ stream: z.string().max(16), line: z.string() }).strict()).max(100_000),
  })
  .strict();

/** The output of a delegation. */
export type DelegationLogsAnswer = z.output<typeof delegationLogsAnswerSchema>;
