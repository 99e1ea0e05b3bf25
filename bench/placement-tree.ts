/** The placement benches' tree: global -> 4 regions -> 5 sites each; simulated nodes join the 20 sites. */
export const PLACEMENT_REGIONS = ['r0', 'r1', 'r2', 'r3'];
/** The 20 sites of the placement benches' tree, `<region>-s<n>`. */
export const PLACEMENT_SITES = PLACEMENT_REGIONS.flatMap((r) => [0, 1, 2, 3, 4].map((i) => `${r}-s${i}`));

/** Defines the placement benches' tree on a hub through its API (least-loaded root, spread regions, bin-pack sites). */
export async function definePlacementTree(hubUrl: string, adminToken: string): Promise<void> {
  const define = async (body: Record<string, unknown>) => {
    const response = await fetch(`${hubUrl}/v1/domains`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw new Error(`domain ${JSON.stringify(body)}: ${response.status}`);
  };
  await define({ domainId: 'global', policy: 'least-loaded' });
  for (const r of PLACEMENT_REGIONS)
    await define({ domainId: r, parentId: 'global', region: r, policy: 'spread' });
  for (const s of PLACEMENT_SITES)
    await define({ domainId: s, parentId: s.split('-')[0], policy: 'bin-pack' });
}
