import { z } from 'zod';
import type { AcceleratorDevice } from './device.schemas';

/** Normalized compute units per device model (the HCS seed table); keys are matched by `modelKey`. */
export const DEFAULT_EXCHANGE_RATES: Readonly<Record<string, number>> = Object.freeze({
  'A100-80G': 1.0,
  'A800-80G': 0.7,
  'Ascend 910B': 0.6,
  'Ascend 910A': 0.5,
  'DCU Z100': 0.4,
  MLU370: 0.35,
  // Not in the seed: H100/H200 at their dense fp16 TFLOPS over the A100's (989 / 312 ≈ 3.2), so the fleet
  // HCN was checked on (a real H100) has a rate. Override with the deployment's own table.
  H100: 3.2,
  H200: 3.2,
});

/** A configurable exchange-rate table: model name → compute units per device. */
export const exchangeRatesSchema = z
  .record(z.string().min(1).max(128), z.number().nonnegative().finite())
  .refine((rates) => Object.keys(rates).length <= 1024, 'at most 1024 exchange rates');
/** A configurable exchange-rate table. */
export type ExchangeRates = z.infer<typeof exchangeRatesSchema>;

/** Brand words dropped from model names, alone or glued to the front of the first token. */
const BRANDS = ['NVIDIA', 'TESLA', 'HUAWEI', 'ASCEND', 'HYGON', 'DCU', 'CAMBRICON', 'AMD'];
const MEMORY_TOKEN = /^(\d+)G(?:I?B)?$/;
const GIB = 1024 ** 3;

/** A model name reduced to its family (e.g. `A100`, `910B`, `MLU370`) and memory in GiB when it names one. */
export interface ModelKey {
  family: string;
  memoryGiB?: number;
}

function stripBrand(token: string): string {
  const brand = BRANDS.find((b) => token.startsWith(b) && token.length > b.length);
  return brand ? token.slice(brand.length) : token;
}

/**
 * The normalization rule: upper-case; split on spaces, dashes and underscores; drop brand words (NVIDIA, Tesla,
 * Huawei, Ascend, Hygon, DCU, Cambricon, AMD), also when glued in front ("Ascend910B" → "910B"); the first
 * remaining token is the family; a token like `80G`, `80GB` or `80GiB` is the memory; every other token (form
 * factors such as SXM4, PCIe, X8) is ignored. "NVIDIA A100-SXM4-80GB" → { family A100, memory 80 }.
 */
export function modelKey(model: string): ModelKey | null {
  const tokens = model
    .toUpperCase()
    .split(/[\s\-_]+/)
    .filter((t) => t.length > 0 && !BRANDS.includes(t))
    .map(stripBrand);
  if (tokens.length === 0) return null;
  const memory = tokens
    .slice(1)
    .map((t) => MEMORY_TOKEN.exec(t))
    .find(Boolean);
  return memory ? { family: tokens[0], memoryGiB: Number(memory[1]) } : { family: tokens[0] };
}

/** A table family matches a device family exactly, or as a lettered family plus a digit variant (910B → 910B3). */
function familyMatches(tableFamily: string, deviceFamily: string): boolean {
  if (tableFamily === deviceFamily) return true;
  const variant = deviceFamily.slice(tableFamily.length);
  return deviceFamily.startsWith(tableFamily) && /[A-Z]$/.test(tableFamily) && /^\d$/.test(variant);
}

function matchScore(table: ModelKey, device: ModelKey): number {
  if (!familyMatches(table.family, device.family)) return 0;
  const exactFamily = table.family === device.family ? 1 : 0;
  if (table.memoryGiB === undefined) return 1 + exactFamily;
  return table.memoryGiB === device.memoryGiB ? 3 + exactFamily : 0;
}

/**
 * Compute units of one device by the rate table, or null for an unknown model. Both names go through
 * `modelKey`; the device's memory comes from its name, else from `memoryBytes` rounded to whole GiB. A table
 * entry with a memory size matches only that size; one without matches any size; exact family beats variant.
 */
export function computeUnits(
  device: Pick<AcceleratorDevice, 'model' | 'memoryBytes'>,
  rates: Readonly<Record<string, number>> = DEFAULT_EXCHANGE_RATES,
): number | null {
  const key = modelKey(device.model);
  if (!key) return null;
  const memoryGiB =
    key.memoryGiB ?? (device.memoryBytes !== undefined ? Math.round(device.memoryBytes / GIB) : undefined);
  let best: { score: number; rate: number } | null = null;
  for (const [name, rate] of Object.entries(rates)) {
    const tableKey = modelKey(name);
    const score = tableKey ? matchScore(tableKey, { family: key.family, memoryGiB }) : 0;
    if (score > 0 && (!best || score > best.score)) best = { score, rate };
  }
  return best ? best.rate : null;
}
