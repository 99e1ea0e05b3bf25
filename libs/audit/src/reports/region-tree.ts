import type { DomainDefinition } from '@hcn/contracts';

/** Domain parents and regions as defined so far; a domain without a region inherits its nearest ancestor's. */
export class RegionTree {
  private readonly domains = new Map<string, { parentId: string | null; region: string | null }>();

  /** Applies a domain definition. */
  define(d: DomainDefinition): void {
    this.domains.set(d.domainId, { parentId: d.parentId, region: d.region });
  }

  /** The region of a domain (own or inherited), or null when no ancestor has one. */
  regionOf(domainId: string): string | null {
    let at: string | null = domainId;
    for (let steps = 0; at !== null && steps < 64; steps++) {
      const d = this.domains.get(at);
      if (!d) return null;
      if (d.region) return d.region;
      at = d.parentId;
    }
    return null;
  }
}
