import type { AcceleratorDevice, DeviceUsage } from '@hcn/contracts';
import { parseNvidiaTopology } from './nvidia-topo';
import {
  execTool,
  fraction,
  mib,
  numberOrUndefined,
  type ParsedDevices,
  type ToolRunner,
} from './tool-runner';

/** Arguments of the nvidia-smi query the parser reads. */
export const NVIDIA_QUERY_ARGS = [
  '--query-gpu=index,uuid,name,memory.total,pci.bus_id,temperature.gpu,utilization.gpu,memory.used',
  '--format=csv,noheader,nounits',
] as const;

const FIELDS = 8;
const BROKEN = /unknown error|gpu is lost|requires reset|ERR!/i;

function splitRow(line: string): string[] | null {
  const parts = line.split(',').map((p) => p.trim());
  if (parts.length < FIELDS) return null;
  const extra = parts.length - FIELDS; // a name containing commas
  return [parts[0], parts[1], parts.slice(2, 3 + extra).join(', '), ...parts.slice(3 + extra)];
}

function parseRow(line: string, out: ParsedDevices): void {
  const f = splitRow(line);
  const index = f ? numberOrUndefined(f[0]) : undefined;
  if (!f || index === undefined || !Number.isInteger(index) || f[2] === '') {
    out.warnings.push(`nvidia-smi: skipped line '${line.slice(0, 120)}'`);
    return;
  }
  const broken = BROKEN.test(line);
  if (broken) out.warnings.push(`nvidia-smi: GPU ${index} reports an error`);
  const memory = numberOrUndefined(f[3]);
  const device: AcceleratorDevice = {
    index,
    vendor: 'nvidia',
    model: f[2],
    ...(f[1].startsWith('GPU-') || f[1].startsWith('MIG-') ? { uuid: f[1] } : {}),
    ...(memory !== undefined ? { memoryBytes: mib(memory) } : {}),
    ...(/^[0-9A-Fa-f]+:[0-9A-Fa-f]+:[0-9A-Fa-f]+\.\d$/.test(f[4]) ? { busId: f[4] } : {}),
    numaNode: null,
    health: broken ? 0 : 100,
    interconnect: [],
  };
  const usage: DeviceUsage = {
    index,
    vendor: 'nvidia',
    utilization: fraction(numberOrUndefined(f[6])),
    memoryUsedBytes: mib(numberOrUndefined(f[7]) ?? 0),
    health: device.health,
  };
  const temperature = numberOrUndefined(f[5]);
  out.devices.push(device);
  out.usage.push(temperature === undefined ? usage : { ...usage, temperatureC: temperature });
}

/**
 * Parses `nvidia-smi --query-gpu=… --format=csv,noheader,nounits` (memory in MiB, utilization in %).
 * `[N/A]` / `[Not Supported]` fields are left out; a row naming an error (Unknown Error, GPU is lost, ERR!)
 * gets health 0; a row that cannot be read is skipped with a warning.
 */
export function parseNvidiaSmiCsv(text: string): ParsedDevices {
  const out: ParsedDevices = { devices: [], usage: [], warnings: [] };
  for (const line of text.split(/\r?\n/)) if (line.trim() !== '') parseRow(line, out);
  return out;
}

/** Adds the links and NUMA nodes of a `nvidia-smi topo -m` matrix to parsed devices. */
export function withNvidiaTopology(parsed: ParsedDevices, topoText: string | null): ParsedDevices {
  if (topoText === null || parsed.devices.length === 0) {
    const warnings = parsed.devices.length ? ['nvidia-smi topo -m: no output'] : [];
    return { ...parsed, warnings: [...parsed.warnings, ...warnings] };
  }
  const topo = parseNvidiaTopology(topoText);
  const devices = parsed.devices.map((d) => ({
    ...d,
    numaNode: topo.numaNodes.get(d.index) ?? null,
    interconnect: topo.links.get(d.index) ?? [],
  }));
  return { ...parsed, devices, warnings: [...parsed.warnings, ...topo.warnings] };
}

/** Detects NVIDIA GPUs with nvidia-smi (query, then topology); no nvidia-smi → no devices. */
/** Usage of the NVIDIA devices now: the query alone (the topology does not change between heartbeats). */
export async function sampleNvidiaUsage(run: ToolRunner = execTool): Promise<ParsedDevices> {
  const csv = await run('nvidia-smi', NVIDIA_QUERY_ARGS);
  return csv === null ? { devices: [], usage: [], warnings: [] } : parseNvidiaSmiCsv(csv);
}

export async function detectNvidia(run: ToolRunner = execTool): Promise<ParsedDevices> {
  const csv = await run('nvidia-smi', NVIDIA_QUERY_ARGS);
  if (csv === null) return { devices: [], usage: [], warnings: [] };
  const parsed = parseNvidiaSmiCsv(csv);
  if (parsed.devices.length === 0) return parsed;
  return withNvidiaTopology(parsed, await run('nvidia-smi', ['topo', '-m']));
}
