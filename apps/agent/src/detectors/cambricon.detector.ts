import type { AcceleratorDevice } from '@hcn/contracts';
import {
  execTool,
  fraction,
  mib,
  numberOrUndefined,
  type ParsedDevices,
  type ToolRunner,
} from './tool-runner';

/** The `key: value` fields of one `Card N` block; keys inside a section are `Section/Key`. */
type Block = { card: number; fields: Map<string, string> };

const indentOf = (line: string): number => line.length - line.trimStart().length;

/** Splits `cnmon info` into `Card N` blocks of fields, tracking one level of indented section. */
export function cnmonBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  let section: { name: string; indent: number } | null = null;
  for (const line of text.split(/\r?\n/)) {
    const card = /^\s*Card\s*:?\s*(\d+)\s*$/i.exec(line);
    if (card) {
      blocks.push({ card: Number(card[1]), fields: new Map() });
      section = null;
      continue;
    }
    const block = blocks[blocks.length - 1];
    if (!block || line.trim() === '') continue;
    if (section && indentOf(line) <= section.indent) section = null;
    const pair = /^\s*([^:]+?)\s*:\s*(.*?)\s*$/.exec(line);
    if (!pair) section = { name: line.trim(), indent: indentOf(line) };
    else block.fields.set(section ? `${section.name}/${pair[1]}` : pair[1], pair[2]);
  }
  return blocks;
}

/** The leading number of a value such as `24576 MiB`, `34 C` or `5 %`. */
const leading = (value: string | undefined): number | undefined => numberOrUndefined(value?.split(/\s+/)[0]);

function busIdOf(fields: Map<string, string>): string | undefined {
  const part = (name: string) => fields.get(`PCIe Info/${name}`);
  const [domain, bus, dev, fn] = [part('Domain ID'), part('Bus num'), part('Device'), part('Function')];
  if ([domain, bus, dev, fn].some((v) => v === undefined || !/^[0-9a-fA-F]+$/.test(v))) return undefined;
  const hex = (v: string, width: number) => parseInt(v, 16).toString(16).padStart(width, '0');
  return `${hex(domain!, 4)}:${hex(bus!, 2)}:${hex(dev!, 2)}.${parseInt(fn!, 16)}`;
}

function blockDevice(block: Block, out: ParsedDevices): void {
  const f = block.fields;
  const model = f.get('Product Name');
  if (!model) {
    out.warnings.push(`cnmon: card ${block.card} has no Product Name; skipped`);
    return;
  }
  const total = leading(f.get('Physical Memory Usage/Total'));
  const busId = busIdOf(f);
  const [uuid, serial] = [f.get('UUID'), f.get('Serial Number')];
  const device: AcceleratorDevice = {
    index: block.card,
    vendor: 'cambricon',
    model,
    ...(uuid ? { uuid } : {}),
    ...(serial ? { serial } : {}),
    ...(total !== undefined ? { memoryBytes: mib(total) } : {}),
    ...(busId ? { busId } : {}),
    numaNode: null,
    health: 100,
    interconnect: [],
  };
  const temperature = leading(f.get('Temperature/Board') ?? f.get('Temperature/Chip'));
  out.devices.push(device);
  out.usage.push({
    index: block.card,
    vendor: 'cambricon',
    utilization: fraction(leading(f.get('Utilization/MLU Average'))),
    memoryUsedBytes: mib(leading(f.get('Physical Memory Usage/Used')) ?? 0),
    ...(temperature !== undefined ? { temperatureC: temperature } : {}),
    health: 100,
  });
}

/**
 * Parses the key/value form of `cnmon info`: one `Card N` block per MLU with `Product Name`, `Serial Number`,
 * `UUID`, and indented sections `PCIe Info` (Domain ID, Bus num, Device, Function, read as hex),
 * `Physical Memory Usage` (Total/Used in MiB), `Utilization` (MLU Average %) and `Temperature` (Board/Chip).
 * A block without a product name is skipped with a warning; text outside blocks is ignored.
 */
export function parseCnmonInfo(text: string): ParsedDevices {
  const out: ParsedDevices = { devices: [], usage: [], warnings: [] };
  const blocks = cnmonBlocks(text);
  for (const block of blocks) {
    if (out.devices.some((d) => d.index === block.card))
      out.warnings.push(`cnmon: card ${block.card} repeated`);
    else blockDevice(block, out);
  }
  if (blocks.length === 0 && text.trim() !== '') out.warnings.push('cnmon: no Card block found');
  return out;
}

/** Detects Cambricon MLUs with `cnmon info`; no cnmon → no devices. */
export async function detectCambricon(run: ToolRunner = execTool): Promise<ParsedDevices> {
  const text = await run('cnmon', ['info']);
  return text === null ? { devices: [], usage: [], warnings: [] } : parseCnmonInfo(text);
}
