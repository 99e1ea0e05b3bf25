import type { NodeResources, NodeUsage } from '@hcn/contracts';
import { statfsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { arch, cpus, freemem, hostname, loadavg, networkInterfaces, platform, totalmem } from 'node:os';

/**
 * Detects this machine's CPU, memory and disk from the OS (accelerators: see accelerators.ts), and its address:
 * `advertised` when configured, else detected (none: the hub shows the hostname).
 */
export function detectHost(
  dataDir: string,
  advertised?: string,
): Omit<NodeResources, 'accelerators' | 'devices'> {
  const fs = statfsSync(dataDir);
  const address = advertised ?? detectAddress();
  return {
    hostname: hostname(),
    ...(address ? { address } : {}),
    arch: arch(),
    os: platform(),
    cpuCores: cpus().length,
    memoryBytes: totalmem(),
    diskBytes: Number(fs.blocks) * Number(fs.bsize),
  };
}

/**
 * Where other machines reach what this node publishes (services' ports): its first external IPv4 address, else its
 * first external IPv6 address; undefined when it has none (the hub then shows its hostname).
 */
export function detectAddress(): string | undefined {
  const external = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && !a.internal);
  return (external.find((a) => a?.family === 'IPv4') ?? external.find((a) => a?.family === 'IPv6'))?.address;
}

interface CpuTimes {
  idle: number;
  total: number;
}

function cpuTimes(): CpuTimes {
  return cpus().reduce(
    (acc, cpu) => {
      const t = cpu.times;
      return { idle: acc.idle + t.idle, total: acc.total + t.user + t.nice + t.sys + t.idle + t.irq };
    },
    { idle: 0, total: 0 },
  );
}

async function availableMemory(): Promise<number> {
  try {
    const text = await readFile('/proc/meminfo', 'utf8');
    const match = /MemAvailable:\s+(\d+) kB/.exec(text);
    if (match) return Number(match[1]) * 1024;
  } catch {
    // not Linux: fall back to free memory
  }
  return freemem();
}

/** Samples CPU, memory and disk usage; CPU usage is measured between two calls. */
export class UsageSampler {
  private last = cpuTimes();

  constructor(private readonly dataDir: string) {}

  async sample(): Promise<NodeUsage> {
    const now = cpuTimes();
    const total = now.total - this.last.total;
    const idle = now.idle - this.last.idle;
    this.last = now;
    const fs = statfsSync(this.dataDir);
    const cpuUsage = total > 0 ? Math.min(1, Math.max(0, 1 - idle / total)) : 0;
    return {
      cpuUsage: Math.round(cpuUsage * 1000) / 1000,
      memoryUsedBytes: Math.max(0, totalmem() - (await availableMemory())),
      diskUsedBytes: Math.max(0, (Number(fs.blocks) - Number(fs.bfree)) * Number(fs.bsize)),
      load1: loadavg()[0],
    };
  }
}
