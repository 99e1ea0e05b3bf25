import type { Page } from 'playwright-core';

/** Texts of the visible rows' cells of a windowed table, one array per row. */
export function tableRows(page: Page, testId: string): Promise<string[][]> {
  return page.$$eval(`[data-testid=${testId}] .vbody .vrow`, (els) =>
    els.map((el) => [...el.children].map((c) => (c as unknown as { innerText: string }).innerText.trim())),
  );
}

/** A hop of the timeline as the page shows it: its type, its title, and its candidates' cells. */
export interface ShownHop {
  type: string | null;
  title: string;
  candidates: string[][];
}

/** Every hop on the workload page's timeline. */
export function shownHops(page: Page): Promise<ShownHop[]> {
  return page.$$eval('[data-testid=hop]', (els) =>
    els.map((el) => {
      const text = (e: unknown): string => (e as { innerText?: string } | null)?.innerText?.trim() ?? '';
      return {
        type: el.getAttribute('data-type'),
        title: text(el.querySelector('.step-title strong')),
        candidates: [...el.querySelectorAll('[data-testid=candidates] tbody tr')].map((tr) =>
          [...tr.children].map(text),
        ),
      };
    }),
  );
}

/** A candidate of a chain step as GET /v1/workloads/:id reports it. */
interface RestCandidate {
  id: string;
  kind: string;
  accepted: boolean;
  reason?: string;
  detail?: string;
  score?: number;
}

/** A step of a delegation chain as GET /v1/workloads/:id reports it. */
export interface RestStep {
  type: string;
  data: {
    hop?: number;
    fromScope?: string | null;
    scope?: string;
    reason?: string;
    candidates?: RestCandidate[];
  };
}

/** The candidate cells the timeline must show for a step: who, verdict, reason (and detail), score. */
export function expectedCandidates(step: RestStep): string[][] {
  return (step.data.candidates ?? []).map((c) => [
    `${c.kind} ${c.kind === 'node' ? c.id.slice(0, 8) : c.id}`,
    c.accepted ? 'accepted' : 'filtered out',
    [c.reason, c.detail].filter(Boolean).join(' '),
    c.score === undefined ? '' : c.score.toFixed(3),
  ]);
}

/** The start of a step's title on the timeline (node names are host names, so only up to the arrow). */
export function expectedTitle(step: RestStep): string {
  const d = step.data;
  if (step.type === 'WorkloadDelegated') return `hop ${d.hop}: ${d.fromScope ?? 'root'} →`;
  if (step.type === 'DelegationRejected') return `rejected by ${d.scope}: ${d.reason}`;
  return '';
}
