import type { InterconnectLink } from '@hcn/contracts';

/** Assumed NVLink bandwidth per link and direction (NVLink 3, A100/A800 generation): NV# = # × 25 GB/s. */
export const NVLINK_GBPS_PER_LINK = 25;
/** Assumed bandwidth of every PCIe path (PIX, PXB, PHB, NODE, SYS): a Gen4 x16 link, ≈ 32 GB/s. */
export const PCIE_GBPS = 32;

/** Links and NUMA nodes read from `nvidia-smi topo -m`, keyed by GPU index. */
export interface NvidiaTopology {
  links: Map<number, InterconnectLink[]>;
  numaNodes: Map<number, number | null>;
  warnings: string[];
}

const PCIE_PATHS = new Set(['PIX', 'PXB', 'PHB', 'NODE', 'SYS', 'SOC']);

// eslint-disable-next-line no-control-regex
const ANSI_ESCAPE = /\u001b\[[0-9;]*m/g;

/**
 * Splits a matrix line into cells: on tabs when it has them, else on runs of two or more spaces. Terminal
 * styling is dropped: a real H100's nvidia-smi 580 underlines the header row even into a pipe.
 */
function cells(line: string): string[] {
  const plain = line.replace(ANSI_ESCAPE, '');
  const parts = plain.includes('\t') ? plain.split('\t') : plain.split(/\s{2,}/);
  return parts.map((c) => c.trim());
}

/** One matrix entry as a link, 'self', or null when not understood. */
export function topoEntryLink(entry: string, peer: number): InterconnectLink | 'self' | null {
  if (entry === 'X') return 'self';
  const nv = /^NV(\d+)$/.exec(entry);
  if (nv) return { kind: 'nvlink', peer, bandwidthGBps: Number(nv[1]) * NVLINK_GBPS_PER_LINK };
  if (PCIE_PATHS.has(entry)) return { kind: 'pcie', peer, bandwidthGBps: PCIE_GBPS };
  return null;
}

function numaOf(cell: string | undefined): number | null {
  return cell !== undefined && /^\d+$/.test(cell) ? Number(cell) : null;
}

function parseRow(row: string[], header: string[], topo: NvidiaTopology): void {
  const self = Number(/^GPU(\d+)$/.exec(row[0])![1]);
  const links: InterconnectLink[] = [];
  header.forEach((column, j) => {
    const peer = /^GPU(\d+)$/.exec(column);
    if (!peer || Number(peer[1]) === self) return;
    const link = topoEntryLink(row[j] ?? '', Number(peer[1]));
    if (link === null) topo.warnings.push(`GPU${self}→${column}: unknown entry '${row[j] ?? ''}'`);
    else if (link !== 'self') links.push(link);
  });
  topo.links.set(self, links);
  const numaColumn = header.indexOf('NUMA Affinity');
  topo.numaNodes.set(self, numaColumn >= 0 ? numaOf(row[numaColumn]) : null);
}

/**
 * Parses the matrix of `nvidia-smi topo -m`: a header row of GPU<n> (and NIC) columns then one row per GPU.
 * NV<n> becomes an NVLink link of n × 25 GB/s, PIX/PXB/PHB/NODE/SYS a PCIe link of 32 GB/s; the
 * "NUMA Affinity" column gives the NUMA node (null for N/A or ranges). NIC rows and the legend are skipped.
 */
export function parseNvidiaTopology(text: string): NvidiaTopology {
  const topo: NvidiaTopology = { links: new Map(), numaNodes: new Map(), warnings: [] };
  let header: string[] | null = null;
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '' || /^\s*Legend:/.test(line)) {
      if (header && /Legend:/.test(line)) break;
      continue;
    }
    const row = cells(line);
    if (!header && row[0] === '' && row.includes('GPU0')) header = row;
    else if (header && /^GPU\d+$/.test(row[0])) parseRow(row, header, topo);
  }
  if (!header) topo.warnings.push('topology: no GPU header row found');
  return topo;
}
