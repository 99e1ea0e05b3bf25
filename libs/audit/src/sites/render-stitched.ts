import { renderChainText } from '../chain/render-chain';
import type { SitePartProblem, StitchedChain, StitchedSitePart } from './stitched.model';

/** One problem of a part as a line. */
function problemText(p: SitePartProblem): string {
  switch (p.kind) {
    case 'chain':
      return `broken link at revision ${p.broken.revision} (${p.broken.reason}): expected ${p.broken.expected}, stored ${p.broken.actual}`;
    case 'head':
      return `stated head ${p.expected.revision}/${p.expected.hash} is not the last event (${p.actual ? `${p.actual.revision}/${p.actual.hash}` : 'none'})`;
    case 'anchor':
      return `recorded hash of revision ${p.revision} ${p.expected} differs from the site's ${p.actual ?? '(missing)'}`;
    case 'origin':
      return `not this delegation's stream: ${p.detail}`;
    case 'decode':
      return `event ${p.eventId} not readable: ${p.detail}`;
    default: {
      const never: never = p;
      return never;
    }
  }
}

/** A part's heading, its verification and its chain, indented under the hop. */
function partText(part: StitchedSitePart): string[] {
  const at = part.hopSeq !== undefined ? ` at hop ${part.hopSeq}` : '';
  const title = `site ${part.siteId}, delegation ${part.delegationId}${at}`;
  if (part.unavailable) return [`${title}: not read (${part.unavailable.code}: ${part.unavailable.message})`];
  const v = part.verification;
  const head = part.head ? `head ${part.head.revision}/${part.head.hash}` : 'no head';
  const verdict = v?.ok ? 'chain intact' : `CHAIN BROKEN (${v?.problems.length ?? 0} problem(s))`;
  const lines = [`${title}: workload ${part.workloadId}, ${head}, ${verdict}`];
  for (const p of v?.problems ?? []) lines.push(`  ! ${problemText(p)}`);
  if (part.chain)
    lines.push(
      ...renderChainText(part.chain)
        .trimEnd()
        .split('\n')
        .map((l) => `  ${l}`),
    );
  return lines;
}

/** Renders a stitched chain as text: this site's chain, then each other site's part with its verification. */
export function renderStitchedText(chain: StitchedChain): string {
  const parts = chain.sites.flatMap(partText);
  return parts.length === 0 ? renderChainText(chain) : `${renderChainText(chain)}${parts.join('\n')}\n`;
}
