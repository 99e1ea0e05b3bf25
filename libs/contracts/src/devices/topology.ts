import type { AcceleratorDevice, InterconnectKind } from './device.schemas';

/**
 * Groups of device indices connected, directly or through each other, by links of the given kinds (default
 * NVLink and HCCS); every device is in exactly one group. Groups and their members are sorted by index.
 */
export function interconnectIslands(
  devices: readonly Pick<AcceleratorDevice, 'index' | 'interconnect'>[],
  kinds: readonly InterconnectKind[] = ['nvlink', 'hccs'],
): number[][] {
  const parent = new Map<number, number>(devices.map((d) => [d.index, d.index]));
  const find = (i: number): number => {
    let root = i;
    while (parent.get(root) !== root) root = parent.get(root)!;
    return root;
  };
  for (const device of devices) {
    for (const link of device.interconnect) {
      if (!kinds.includes(link.kind) || !parent.has(link.peer)) continue;
      const [a, b] = [find(device.index), find(link.peer)];
      if (a !== b) parent.set(Math.max(a, b), Math.min(a, b));
    }
  }
  const groups = new Map<number, number[]>();
  for (const index of [...parent.keys()].sort((a, b) => a - b)) {
    const root = find(index);
    groups.set(root, [...(groups.get(root) ?? []), index]);
  }
  return [...groups.values()].sort((a, b) => a[0] - b[0]);
}
