import { InvalidArgumentError } from 'commander';

const MEMORY_UNITS: Record<string, number> = {
  '': 1,
  k: 1e3,
  K: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
};

/** A whole number option (`--limit 20`). */
export function wholeNumber(text: string): number {
  if (!/^\d+$/.test(text)) throw new InvalidArgumentError('must be a whole number');
  return Number(text);
}

/** A byte quantity: `1073741824`, `512Mi`, `80Gi`, `1.5G` (Kubernetes suffixes). */
export function memoryQuantity(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|Pi|k|K|M|G|T|P)?$/.exec(text.trim());
  if (!match) throw new InvalidArgumentError('must be bytes, or a quantity like 512Mi, 80Gi, 1.5G');
  const bytes = Math.round(Number(match[1]) * MEMORY_UNITS[match[2] ?? '']);
  if (!Number.isSafeInteger(bytes)) throw new InvalidArgumentError('is too large');
  return bytes;
}

/** CPU in millicores from cores (`2`, `0.5`) or millicores (`500m`). */
export function cpuQuantity(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(m)?$/.exec(text.trim());
  if (!match) throw new InvalidArgumentError('must be cores (2, 0.5) or millicores (500m)');
  const millis = match[2] ? Number(match[1]) : Number(match[1]) * 1000;
  if (!Number.isInteger(millis)) throw new InvalidArgumentError('must be a whole number of millicores');
  return millis;
}

/** A non-negative decimal (`--compute-units 2.5`). */
export function decimal(text: string): number {
  if (!/^\d+(\.\d+)?$/.test(text)) throw new InvalidArgumentError('must be a non-negative number');
  return Number(text);
}

/** One `key=value` pair; the value may be empty, the key may not. */
export function keyValue(text: string): [string, string] {
  const at = text.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError(`'${text}' is not key=value`);
  return [text.slice(0, at), text.slice(at + 1)];
}

/** A repeatable `key=value` option gathered into a record (`-p a=1 -p b=2`). */
export function collectPairs(text: string, previous: Record<string, string> = {}): Record<string, string> {
  const [key, value] = keyValue(text);
  return { ...previous, [key]: value };
}

/** A repeatable option gathered into a list (`--status running --status failed`). */
export function collect(text: string, previous: string[] = []): string[] {
  return [...previous, text];
}

/** One of a fixed set of words. */
export function oneOf(...words: string[]): (text: string) => string {
  return (text) => {
    if (!words.includes(text)) throw new InvalidArgumentError(`must be one of ${words.join(', ')}`);
    return text;
  };
}
