import {
  acceleratorVendorSchema,
  INTERCONNECT_KINDS,
  z,
  type AcceleratorDevice,
  type AcceleratorVendor,
  type InterconnectLink,
} from '@hcn/contracts';

const UNIT: Record<string, number> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };
const MEMORY = /^(\d+(?:\.\d+)?)\s*(?:([KMGT])(?:i?B?)?|B)?$/i;

/** Device memory as bytes, or a string in binary units: `80G`, `80Gi`, `80GiB`, `65536Mi` (all × 1024ⁿ). */
export const memorySizeSchema = z.union([
  z.number().int().nonnegative(),
  z
    .string()
    .trim()
    .regex(MEMORY, 'memory: bytes or a size such as 80Gi, 80GiB, 65536Mi')
    .transform((text) => {
      const [, amount, unit] = MEMORY.exec(text)!;
      return Math.round(Number(amount) * UNIT[(unit ?? '').toUpperCase()]);
    }),
]);

const index = z.number().int().min(0).max(1023);
const numaNode = z.number().int().min(0).max(1023).nullable();

/** One explicitly declared device; what it leaves out comes from its group. */
export const declaredDeviceEntrySchema = z
  .object({
    index: index.optional(),
    model: z.string().min(1).max(128).optional(),
    memory: memorySizeSchema.optional(),
    uuid: z.string().min(1).max(128).optional(),
    serial: z.string().min(1).max(128).optional(),
    busId: z.string().min(1).max(64).optional(),
    numaNode: numaNode.optional(),
    health: z.number().int().min(0).max(100).optional(),
  })
  .strict();

/** Default link inside a declared island, by vendor (NV12 NVLink, HCCS, else PCIe). */
export const DEFAULT_ISLAND_LINK: Readonly<Record<AcceleratorVendor, Omit<InterconnectLink, 'peer'>>> = {
  nvidia: { kind: 'nvlink', bandwidthGBps: 300 },
  ascend: { kind: 'hccs', bandwidthGBps: 56 },
  hygon: { kind: 'pcie', bandwidthGBps: 32 },
  cambricon: { kind: 'pcie', bandwidthGBps: 32 },
};

/**
 * One group of declared devices: `count` alike devices (indices from `firstIndex`, default the vendor's next
 * free index) or explicit `entries`; `islands` lists groups of device indices fully linked to each other.
 */
export const declaredDeviceGroupSchema = z
  .object({
    vendor: acceleratorVendorSchema,
    model: z.string().min(1).max(128),
    memory: memorySizeSchema.optional(),
    tflopsFp16: z.number().nonnegative().optional(),
    tflopsFp32: z.number().nonnegative().optional(),
    count: z.number().int().min(1).max(1024).optional(),
    firstIndex: index.optional(),
    entries: z.array(declaredDeviceEntrySchema).min(1).max(1024).optional(),
    numaNode: numaNode.optional(),
    islands: z.array(z.array(index).min(1).max(1024)).max(1024).optional(),
    link: z.object({ kind: z.enum(INTERCONNECT_KINDS), bandwidthGBps: z.number().nonnegative() }).optional(),
  })
  .strict()
  .refine((g) => (g.count === undefined) !== (g.entries === undefined), 'give either count or entries');
/** One group of declared devices, as parsed. */
export type DeclaredDeviceGroup = z.output<typeof declaredDeviceGroupSchema>;

type Entry = z.output<typeof declaredDeviceEntrySchema>;

/** The entries of a group with their indices assigned; `next` holds each vendor's next free index. */
function assignIndices(
  group: DeclaredDeviceGroup,
  next: Map<AcceleratorVendor, number>,
): Array<Entry & { index: number }> {
  let counter = group.firstIndex ?? next.get(group.vendor) ?? 0;
  const entries: Entry[] = group.entries ?? Array.from({ length: group.count ?? 0 }, () => ({}));
  const assigned = entries.map((entry) => {
    const at = entry.index ?? counter;
    counter = Math.max(counter, at + 1);
    return { ...entry, index: at };
  });
  next.set(group.vendor, Math.max(next.get(group.vendor) ?? 0, counter));
  return assigned;
}

function islandLinks(group: DeclaredDeviceGroup, self: number): InterconnectLink[] {
  const link = group.link ?? DEFAULT_ISLAND_LINK[group.vendor];
  const islands = (group.islands ?? []).filter((members) => members.includes(self));
  return [...new Set(islands.flat())].filter((peer) => peer !== self).map((peer) => ({ ...link, peer }));
}

function toDevice(group: DeclaredDeviceGroup, entry: Entry & { index: number }): AcceleratorDevice {
  const memory = entry.memory ?? group.memory;
  const optional = {
    uuid: entry.uuid,
    serial: entry.serial,
    memoryBytes: memory,
    tflopsFp16: group.tflopsFp16,
    tflopsFp32: group.tflopsFp32,
    busId: entry.busId,
  };
  return {
    index: entry.index,
    vendor: group.vendor,
    model: entry.model ?? group.model,
    ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)),
    numaNode: entry.numaNode ?? group.numaNode ?? null,
    health: entry.health ?? 100,
    interconnect: islandLinks(group, entry.index),
  };
}

/** Expands declared groups into devices, in order; see `declaredDevicesSchema` for the checks. */
export function expandDeclaredDevices(groups: readonly DeclaredDeviceGroup[]): AcceleratorDevice[] {
  const next = new Map<AcceleratorVendor, number>();
  return groups.flatMap((group) => assignIndices(group, next).map((entry) => toDevice(group, entry)));
}

function checkGroups(groups: DeclaredDeviceGroup[], ctx: z.RefinementCtx): void {
  const next = new Map<AcceleratorVendor, number>();
  const seen = new Set<string>();
  groups.forEach((group, g) => {
    const indices = assignIndices(group, next).map((e) => e.index);
    for (const i of indices) {
      if (seen.has(`${group.vendor}/${i}`))
        ctx.addIssue({ code: 'custom', message: `${group.vendor} device ${i} declared twice`, path: [g] });
      seen.add(`${group.vendor}/${i}`);
    }
    for (const i of (group.islands ?? []).flat()) {
      if (!indices.includes(i))
        ctx.addIssue({
          code: 'custom',
          message: `island names device ${i}, not in this group`,
          path: [g, 'islands'],
        });
    }
  });
}

/** The `devices:` list of the agent's YAML file: (vendor, index) unique, islands naming the group's devices. */
export const declaredDevicesSchema = z.array(declaredDeviceGroupSchema).max(64).superRefine(checkGroups);
