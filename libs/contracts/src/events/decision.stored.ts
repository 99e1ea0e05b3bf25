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
        kept: z.array(z.union([compactVerdictSchema, shortVerdictSchema])).max(1000),
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

/** A full decision record as stored (see `storedDecisionSchema`); `fullDecision` gives it back. */
export function storedDecision(d: CompactDecision): StoredDecision {
  let previous: { scope: string | null; policy?: string } = { scope: null };
  const hops = d.hops.map(({ scope, policy, to, kept, ...h }, i) => {
    const implied = { scope: scope === previous.scope, policy: policy === previous.policy };
    previous = { scope: kept[to]?.[1] ?? null, policy };
    const kind = impliedKind(i, d.hops.length);
    return {
      ...(implied.scope ? {} : { scope }),
      ...(implied.policy ? {} : { policy }),
      ...(to === 0 ? {} : { to }),
      ...storedJudging({ ...h, kept }),
      kept: kept.map((v) => (v[0] === kind ? shortOf(v) : v)),
    };
  });
  const { topK, rejections, basis, ...rest } = d;
  return {
    ...rest,
    hops,
    ...(rejections ? { rejections: rejections.map((r) => storedJudging(r)) } : {}),
    ...(topK === DECISION_TOP_K ? {} : { topK }),
    ...(basis ? { basis: storedBasis(basis) } : {}),
  };
}

/** A stored decision record in its full form: every field `storedDecision` left out filled back. */
export function fullDecision(d: StoredDecision): CompactDecision {
  let previous: { scope: string | null; policy?: string } = { scope: null };
  const hops = d.hops.map(({ scope = previous.scope, policy = previous.policy ?? '', to = 0, ...h }, i) => {
    const kind = impliedKind(i, d.hops.length);
    const kept = h.kept.map((v) => (isShort(v) ? withKind(kind, v) : v));
    previous = { scope: kept[to]?.[1] ?? null, policy };
    return { scope, policy, to, ...fullJudging({ ...h, kept }) };
  });
  const { topK = DECISION_TOP_K, rejections, basis, ...rest } = d;
  return {
    ...rest,
    hops,
    ...(rejections ? { rejections: rejections.map((r) => fullJudging(r)) } : {}),
    topK,
    ...(basis ? { basis: fullBasis(basis) } : {}),
  };
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

/** Counts per reason of the kept verdicts that are rejections (reason codes in order). */
function keptCounts(kept: readonly CompactVerdict[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of kept) if (v[3] !== undefined) counts[v[3]] = (counts[v[3]] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : 1)));
}

function storedJudging<J extends Judging>(
  j: J,
): Omit<J, 'members' | 'judged' | 'rejected'> & Partial<Judging> {
  const { members, judged, rejected = {}, ...rest } = j;
  const derivable = sameCounts(rejected, keptCounts(j.kept));
  return {
    ...rest,
    ...(members === j.kept.length ? {} : { members }),
    ...(judged === members ? {} : { judged }),
    ...(derivable ? {} : { rejected }),
  };
}

function fullJudging<J extends Partial<Judging> & { kept: CompactVerdict[] }>(j: J): J & Judging {
  const { rejected, ...rest } = j;
  const members = j.members ?? j.kept.length;
  const counts = rejected ?? keptCounts(j.kept);
  const present = Object.keys(counts).length > 0 ? { rejected: counts } : {};
  return { ...(rest as J), members, judged: j.judged ?? members, ...present };
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
  for (const run of runs.split(',')) {
    const [from, to = from] = run.split('-').map(Number);
    for (let offset = from; offset <= to; offset++) bytes[offset >> 3] |= 1 << (offset & 7);
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
