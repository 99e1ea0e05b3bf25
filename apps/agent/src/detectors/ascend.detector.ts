import type { AcceleratorDevice } from '@hcn/contracts';
import {
  execTool,
  fraction,
  mib,
  numberOrUndefined,
  type ParsedDevices,
  type ToolRunner,
} from './tool-runner';

/** Health scores given to npu-smi's health words. */
export const ASCEND_HEALTH: Readonly<Record<string, number>> = {
  OK: 100,
  WARNING: 60,
  ALARM: 30,
  CRITICAL: 0,
};

interface NpuLine {
  npu: number;
  name: string;
  health: string;
  temperature?: number;
}

const BUS_ID = /^[0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d$/;

function firstLine(cells: string[]): NpuLine | null {
  const head = /^(\d+)\s+(\S+)$/.exec(cells[0]);
  if (!head || BUS_ID.test(cells[1]) || !/^\S+$/.test(cells[1])) return null;
  const temperature = numberOrUndefined(cells[2].split(/\s+/)[1]);
  return {
    npu: Number(head[1]),
    name: head[2],
    health: cells[1],
    ...(temperature !== undefined ? { temperature } : {}),
  };
}

function healthScore(word: string, npu: number, warnings: string[]): number {
  const score = ASCEND_HEALTH[word.toUpperCase()];
  if (score !== undefined) return score;
  warnings.push(`npu-smi: NPU ${npu} has unknown health '${word}'`);
  return 50;
}

/** Used/total of HBM when the row shows HBM, else of the memory column (MB). */
function memoryPair(usageCell: string): { used: number; total: number } | undefined {
  const pairs = [...usageCell.matchAll(/(\d+)\s*\/\s*(\d+)/g)].map((m) => ({ used: +m[1], total: +m[2] }));
  return pairs.reverse().find((p) => p.total > 0);
}

function chipDevice(npu: NpuLine, cells: string[], out: ParsedDevices): void {
  const ids = cells[0].split(/\s+/).map(Number);
  const index = ids.length > 1 ? ids[1] : npu.npu;
  if (out.devices.some((d) => d.index === index)) {
    out.warnings.push(`npu-smi: NPU ${npu.npu} chip ${ids[0]} repeats index ${index}; skipped`);
    return;
  }
  const health = healthScore(npu.health, npu.npu, out.warnings);
  const memory = memoryPair(cells[2]);
  const device: AcceleratorDevice = {
    index,
    vendor: 'ascend',
    model: /^ascend/i.test(npu.name) ? npu.name : `Ascend ${npu.name}`,
    ...(memory ? { memoryBytes: mib(memory.total) } : {}),
    busId: cells[1],
    numaNode: null,
    health,
    interconnect: [],
  };
  out.devices.push(device);
  out.usage.push({
    index,
    vendor: 'ascend',
    utilization: fraction(numberOrUndefined(cells[2].split(/\s+/)[0])),
    memoryUsedBytes: mib(memory?.used ?? 0),
    ...(npu.temperature !== undefined ? { temperatureC: npu.temperature } : {}),
    health,
  });
}

function tableRows(text: string): string[][] {
  const rows: string[][] = [];
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('|')) continue;
    const cells = trimmed
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    if (cells.some((c) => /Process id/i.test(c))) break;
    rows.push(cells);
  }
  return rows;
}

/**
 * Parses the table of `npu-smi info`: per NPU a line `NPU Name | Health | Power(W) Temp(C) …` and one line per
 * chip `Chip [Device] | Bus-Id | AICore(%) Memory-Usage(MB) [HBM-Usage(MB)]`. Index is the Device column when
 * shown, else the NPU id; memory is the HBM total when shown (910B), else the Memory-Usage total. The process
 * table below is ignored; unreadable rows are skipped with a warning.
 */
export function parseNpuSmiInfo(text: string): ParsedDevices {
  const out: ParsedDevices = { devices: [], usage: [], warnings: [] };
  let npu: NpuLine | null = null;
  for (const cells of tableRows(text)) {
    const first = cells.length >= 3 ? firstLine(cells) : null;
    if (first) npu = first;
    else if (cells.length >= 3 && /^\d+(\s+\d+)?$/.test(cells[0]) && BUS_ID.test(cells[1]) && npu)
      chipDevice(npu, cells, out);
    else if (/^\d/.test(cells[0]))
      out.warnings.push(`npu-smi: skipped row '${cells.join(' | ').slice(0, 120)}'`);
  }
  return out;
}

/** Detects Ascend NPUs with `npu-smi info`; no npu-smi → no devices. */
export async function detectAscend(run: ToolRunner = execTool): Promise<ParsedDevices> {
  const text = await run('npu-smi', ['info']);
  return text === null ? { devices: [], usage: [], warnings: [] } : parseNpuSmiInfo(text);
}
