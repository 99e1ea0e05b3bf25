import type { EventDataOf } from '@hcn/contracts';

/** The region label of a place with no region. */
const NO_REGION = '(none)';

/**
 * The regions of the other sites this one delegates to, as they registered (`SiteRegistered.regions`): a
 * compliance report places work handed to a site in the site's regions, since which of them the site chose is in
 * the site's own log.
 */
export class SiteRegions {
  private readonly regions = new Map<string, readonly string[]>();

  /** Takes a site's registration (a newer one replaces an older). */
  register(d: EventDataOf<'SiteRegistered'>): void {
    this.regions.set(d.siteId, [...d.regions].sort());
  }

  /** A site's regions as one label (`eu-west us-east`), `(none)` when it named none. */
  label(siteId: string): string {
    const regions = this.regions.get(siteId) ?? [];
    return regions.length > 0 ? regions.join(' ') : NO_REGION;
  }

  /**
   * Whether work placed at the site breaks a spec's residency: none of the site's regions is allowed (a site with
   * no regions is outside any affinity), or every one of them is forbidden.
   */
  violates(siteId: string, affinity: readonly string[], antiAffinity: readonly string[]): boolean {
    const regions = this.regions.get(siteId) ?? [];
    if (affinity.length > 0 && !regions.some((r) => affinity.includes(r))) return true;
    return regions.length > 0 && regions.every((r) => antiAffinity.includes(r));
  }
}
