import type { AcceleratorDevice, DeviceUsage } from '@hcn/contracts';
import { execTool, fraction, numberOrUndefined, type ParsedDevices, type ToolRunner } from './tool-runner';

/** Arguments given to hy-smi / rocm-smi: product name, VRAM, bus and use, as JSON. */
export const HYGON_SMI_ARGS = [
  '--showproductname',
  '--showmeminfo',
  'vram',
  '--showbus',
  '--showuse',
  '--json',
] as const;

type Card = Record<string, unknown>;

/** The value of a key compared case-insensitively, as a trimmed string. */
function field(card: Card, ...names: string[]): string | undefined {
  const wanted = names.map((n) => n.toLowerCase());
  const key = Object.keys(card).find((k) => wanted.includes(k.toLowerCase()));
  const value = key === undefined ? undefined : card[key];
  return typeof value === 'string' || typeof value === 'number' ? String(value).trim() : undefined;
}

function parseCard(index: number, card: Card, out: ParsedDevices): void {
  const vendor = field(card, 'Card vendor') ?? '';
  if (/advanced micro devices|\bAMD\b/i.test(vendor) && !/hygon|haiguang/i.test(vendor)) {
    out.warnings.push(`card${index}: vendor '${vendor}' is not Hygon; skipped`);
    return;
  }
  const model = field(card, 'Card series', 'Card model') || 'Hygon DCU';
  const total = numberOrUndefined(field(card, 'VRAM Total Memory (B)'));
  const busId = field(card, 'PCI Bus');
  const device: AcceleratorDevice = {
    index,
    vendor: 'hygon',
    model,
    ...(total !== undefined ? { memoryBytes: total } : {}),
    ...(busId ? { busId } : {}),
    numaNode: null,
    health: 100,
    interconnect: [],
  };
  const usage: DeviceUsage = {
    index,
    vendor: 'hygon',
    utilization: fraction(numberOrUndefined(field(card, 'GPU use (%)', 'DCU use (%)'))),
    memoryUsedBytes: numberOrUndefined(field(card, 'VRAM Total Used Memory (B)')) ?? 0,
    health: 100,
  };
  out.devices.push(device);
  out.usage.push(usage);
}

/**
 * Parses the JSON of `rocm-smi` / `hy-smi --showproductname --showmeminfo vram [--showbus] [--showuse] --json`:
 * an object keyed `card0`, `card1`, … whose values carry "Card series", "Card vendor", "VRAM Total Memory (B)",
 * "VRAM Total Used Memory (B)", "PCI Bus" and "GPU use (%)" as strings. Other keys (`system`) are ignored;
 * cards whose vendor is AMD rather than Hygon are skipped with a warning.
 */
export function parseRocmSmiJson(text: string): ParsedDevices {
  const out: ParsedDevices = { devices: [], usage: [], warnings: [] };
  let json: unknown;
  try {
    json = JSON.parse(text.slice(Math.max(0, text.indexOf('{'))));
  } catch {
    return { ...out, warnings: ['rocm-smi: output is not JSON'] };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { ...out, warnings: ['rocm-smi: output is not a JSON object'] };
  }
  for (const [key, value] of Object.entries(json)) {
    const card = /^card(\d+)$/i.exec(key);
    if (!card) continue;
    if (typeof value === 'object' && value !== null) parseCard(Number(card[1]), value as Card, out);
    else out.warnings.push(`rocm-smi: ${key} is not an object`);
  }
  out.devices.sort((a, b) => a.index - b.index);
  out.usage.sort((a, b) => a.index - b.index);
  return out;
}

/** Detects Hygon DCUs with hy-smi, else rocm-smi (same JSON form); neither tool → no devices. */
export async function detectHygon(run: ToolRunner = execTool): Promise<ParsedDevices> {
  for (const tool of ['hy-smi', 'rocm-smi']) {
    const text = await run(tool, HYGON_SMI_ARGS);
    if (text !== null) return parseRocmSmiJson(text);
  }
  return { devices: [], usage: [], warnings: [] };
}
