import { z } from 'zod';
import { withStoredForm } from '../util/without-defaults';
import {
  CompactDecision,
  CompactVerdict,
  DecisionBasisRecord,
  compactHopSchema,
  compactRejectionSchema,
  compactVerdictSchema,
  decisionBasisSchema,
  formatOffsetRuns,
  fullDecisionSchema,
  lastOffsetOfRuns,
} from './decision.record';

/** Best scored candidates a record keeps per scope unless it says otherwise (as Nomad keeps its top scores). */
export const DECISION_TOP_K = 5;

const candidateId = z.string().max(64);
const reasonCode = z.string().max(64);

/** A kept verdict without its kind (`[id, score]`, `[id, score, reason]`): the kind its hop implies. */
const shortVerdictSchema = z.union([
  z.tuple([candidateId, z.number().nullable()]),
  z.tuple([candidateId, z.number().nullable(), reasonCode]),
]);
type ShortVerdict = z.output<typeof shortVerdictSchema>;

/** The basis as stored: `bits` (offsets as a bit set, base64url) instead of `ahead` where that is shorter. */
const storedBasisSchema = decisionBasisSchema.extend({
  bits: z
    .string()
    .max(20_000)
    .regex(/^[A-Za-z0-9_-]+$/)
    .optional(),
});

/**
 * A decision as stored (`storedDecision`): what its full form repeats is left out. A hop's `scope` is absent when it
 * is the previous hop's chosen candidate (the first hop's: the root, null), its `policy` when the previous hop's,
 * `to` when 0; a hop's kept verdicts have no kind when it is the one the hop implies (nodes at the last hop,
 * domains before); a scope's `members` is absent when it equals the number of kept verdicts, `judged` when it
 * equals `members`, `rejected` when it equals the counts per reason of its kept verdicts; `topK` when 5; the
 * basis's `ahead` runs are a bit set (`bits`) when that is shorter. Records written before carry every field and
 * read as they are.
 */
const storedDecisionSchema = fullDecisionSchema.extend({
  hops: z
    .array(
      compactHopSchema.partial({ scope: true, policy: true, to: true, members: true, judged: true }).extend({
        // full forms first: a full verdict fails a short form slowly, a short one fails a full form at its kind
        kept: z.array(z.union([...compactVerdictSchema.options, ...shortVerdictSchema.options])).max(1000),
      }),
    )
    .max(64),
  rejections: z
    .array(compactRejectionSchema.partial({ members: true, judged: true }))
    .max(1000)
    .optional(),
  topK: z.number().int().min(0).optional(),
  basis: storedBasisSchema.optional(),
});
type StoredDecision = z.output<typeof storedDecisionSchema>;

/** A compact decision record: stored as `storedDecisionSchema` says, read in its full form (`fullDecisionSchema`). */
export const compactDecisionSchema = withStoredForm(
  storedDecisionSchema.transform((d) => fullDecision(d)),
  (d) => storedDecision(d),
);

type FullHop = CompactDecision['hops'][number];
type FullRejection = NonNullable<CompactDecision['rejections']>[number];
type StoredHop = StoredDecision['hops'][number];
type StoredRejection = NonNullable<StoredDecision['rejections']>[number];

/** A full decision record as stored (see `storedDecisionSchema`); `fullDecision` gives it back. */
export function storedDecision(d: CompactDecision): StoredDecision {
  const hops: StoredHop[] = [];
  let previous: { scope: string | null; policy?: string } = { scope: null };
  for (const [i, h] of d.hops.entries()) {
    const kind = impliedKind(i, d.hops.length);
    const hop: StoredHop = { kept: h.kept.map((v) => (v[0] === kind ? shortOf(v) : v)) };
    if (h.scope !== previous.scope) hop.scope = h.scope;
    if (h.policy !== previous.policy) hop.policy = h.policy;
    if (h.to !== 0) hop.to = h.to;
    hops.push(storeJudging(h, hop));
    previous = { scope: h.kept[h.to]?.[1] ?? null, policy: h.policy };
  }
  const stored: StoredDecision = { hops };
  if (d.rejections) stored.rejections = d.rejections.map(storedRejection);
  if (d.topK !== DECISION_TOP_K) stored.topK = d.topK;
  if (d.sampleLimit !== undefined) stored.sampleLimit = d.sampleLimit;
  if (d.basis) stored.basis = storedBasis(d.basis);
  return stored;
}

/** A stored decision record in its full form: every field `storedDecision` left out filled back. */
export function fullDecision(d: StoredDecision): CompactDecision {
  if (isFull(d)) return d; // a record validated before it is stored, or one written before stored forms
  const hops: FullHop[] = [];
  let previous: { scope: string | null; policy: string } = { scope: null, policy: '' };
  for (const [i, h] of d.hops.entries()) {
    const kind = impliedKind(i, d.hops.length);
    const kept = h.kept.map((v) => (isShort(v) ? withKind(kind, v) : v));
    const [scope, policy, to] = [
      h.scope === undefined ? previous.scope : h.scope,
      h.policy ?? previous.policy,
      h.to ?? 0,
    ];
    hops.push(fullJudging(h, { scope, policy, to, kept, members: 0, judged: 0 }));
    previous = { scope: kept[to]?.[1] ?? null, policy };
  }
  const full: CompactDecision = { hops, topK: d.topK ?? DECISION_TOP_K };
  if (d.rejections) full.rejections = d.rejections.map(fullRejection);
  if (d.sampleLimit !== undefined) full.sampleLimit = d.sampleLimit;
  if (d.basis) full.basis = fullBasis(d.basis);
  return full;
}

/** Whether nothing of `d` was left out (`fullDecision` would give it back as it is). */
function isFull(d: StoredDecision): d is CompactDecision {
  const judging = (j: StoredJudging & { kept: readonly (CompactVerdict | ShortVerdict)[] }) =>
    j.members !== undefined &&
    j.judged !== undefined &&
    j.kept.every((v) => !isShort(v)) &&
    (j.rejected === undefined ? j.kept.every((v) => v.length < 4) : Object.keys(j.rejected).length > 0);
  return (
    d.topK !== undefined &&
    d.basis?.bits === undefined &&
    d.hops.every(
      (h) => h.scope !== undefined && h.policy !== undefined && h.to !== undefined && judging(h),
    ) &&
    (d.rejections ?? []).every(judging)
  );
}

function storedRejection(r: FullRejection): StoredRejection {
  const stored: StoredRejection = { scope: r.scope, reason: r.reason, detail: r.detail, kept: r.kept };
  return storeJudging(r, stored);
}

function fullRejection(r: StoredRejection): FullRejection {
  const { scope, reason, detail, kept } = r;
  return fullJudging(r, { scope, reason, detail, kept, members: 0, judged: 0 });
}

/**
 * The decision with its last hop's chosen candidate renamed from `from` to `to` (an AllocationPlaced stores its
 * node, which the event names already, as '' there); returned as it is when that candidate is not `from`.
 */
export function renameChosen(decision: CompactDecision, from: string, to: string): CompactDecision {
  const last = decision.hops[decision.hops.length - 1];
  const chosen = last?.kept[last.to];
  if (!chosen || chosen[1] !== from) return decision;
  const renamed: CompactVerdict =
    chosen[3] === undefined ? [chosen[0], to, chosen[2]] : [chosen[0], to, chosen[2], chosen[3]];
  const kept = last.kept.map((v, i) => (i === last.to ? renamed : v));
  return { ...decision, hops: [...decision.hops.slice(0, -1), { ...last, kept }] };
}

/** The kind a hop's candidates have unless they say otherwise: nodes at the last hop, domains before. */
function impliedKind(hop: number, hops: number): 'n' | 'd' {
  return hop === hops - 1 ? 'n' : 'd';
}

function shortOf([, id, score, reason]: CompactVerdict): ShortVerdict {
  return reason === undefined ? [id, score] : [id, score, reason];
}

/** A short verdict's second member is its score (a number or null), a full one's its id (a string). */
function isShort(v: CompactVerdict | ShortVerdict): v is ShortVerdict {
  return typeof v[1] !== 'string';
}

function withKind(kind: 'n' | 'd', [id, score, reason]: ShortVerdict): CompactVerdict {
  return reason === undefined ? [kind, id, score] : [kind, id, score, reason];
}

type Judging = { members: number; judged: number; rejected?: Record<string, number>; kept: CompactVerdict[] };
type StoredJudging = { members?: number; judged?: number; rejected?: Record<string, number> };

/** Counts per reason of the kept verdicts that are rejections, reason codes in order (undefined: none). */
function keptCounts(kept: readonly CompactVerdict[]): Record<string, number> | undefined {
  let counts: Record<string, number> | undefined;
  for (const v of kept) if (v[3] !== undefined) (counts ??= {})[v[3]] = (counts[v[3]] ?? 0) + 1;
  return counts && Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Sets on `out` the judging fields of `j` that the stored form keeps (see `storedDecisionSchema`). */
function storeJudging<T extends StoredJudging>(j: Judging, out: T): T {
  if (j.members !== j.kept.length) out.members = j.members;
  if (j.judged !== j.members) out.judged = j.judged;
  if (!sameCounts(j.rejected ?? {}, keptCounts(j.kept) ?? {})) out.rejected = j.rejected ?? {};
  return out;
}

/** Sets on `out` (which has the kept verdicts in full) the judging fields of stored `j`, filled back. */
function fullJudging<T extends Judging>(j: StoredJudging, out: T): T {
  out.members = j.members ?? out.kept.length;
  out.judged = j.judged ?? out.members;
  const rejected = j.rejected ?? keptCounts(out.kept);
  if (rejected && Object.keys(rejected).length > 0) out.rejected = rejected;
  return out;
}

function sameCounts(a: Record<string, number>, b: Record<string, number>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

/** The basis with its `ahead` runs as a bit set when that is shorter (a lagging view's runs are long and dense). */
function storedBasis(basis: DecisionBasisRecord): z.output<typeof storedBasisSchema> {
  const { ahead, ...rest } = basis;
  if (ahead === undefined || lastOffsetOfRuns(ahead) / 6 >= ahead.length) return basis;
  const bits = bitsOfRuns(ahead);
  return bits.length < ahead.length ? { ...rest, bits } : basis;
}

function fullBasis(basis: z.output<typeof storedBasisSchema>): DecisionBasisRecord {
  const { bits, ...rest } = basis;
  return bits === undefined ? rest : { ...rest, ahead: runsOfBits(bits) };
}

/** Offset runs (`0,5-6,8`) as a bit set: bit i (least significant first in each byte) is offset i; base64url. */
export function bitsOfRuns(runs: string): string {
  const bytes = Buffer.alloc((lastOffsetOfRuns(runs) >> 3) + 1);
  let from = -1;
  let n = 0;
  // one pass over the text: appends are frequent and a lagging view's runs long
  for (let i = 0; i <= runs.length; i++) {
    const c = i < runs.length ? runs.charCodeAt(i) : 44;
    if (c >= 48 && c <= 57) n = n * 10 + c - 48;
    else if (c === 45) [from, n] = [n, 0];
    else {
      for (let offset = from < 0 ? n : from; offset <= n; offset++) bytes[offset >> 3] |= 1 << (offset & 7);
      [from, n] = [-1, 0];
    }
  }
  return bytes.toString('base64url');
}

/** A bit set written by bitsOfRuns as offset runs. */
export function runsOfBits(bits: string): string {
  const bytes = Buffer.from(bits, 'base64url');
  const offsets: number[] = [];
  for (let offset = 0; offset < bytes.length * 8; offset++)
    if (bytes[offset >> 3] & (1 << (offset & 7))) offsets.push(offset);
  return formatOffsetRuns(offsets);
}
