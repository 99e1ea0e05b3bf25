import type { AcceleratorDevice, DeviceUsage } from '@hcn/contracts';
import { execFile } from 'node:child_process';

/** Runs a vendor tool and resolves to its stdout, or null when the tool is missing, fails or times out. */
export type ToolRunner = (command: string, args: readonly string[]) => Promise<string | null>;

/** What a parser got from one tool's output: the devices, their usage when shown, and what it skipped. */
export interface ParsedDevices {
  devices: AcceleratorDevice[];
  usage: DeviceUsage[];
  warnings: string[];
}

/** Limit on one vendor tool run. */
export const TOOL_TIMEOUT_MS = 5000;

/** The real runner: `execFile` with a 5 s timeout and no shell; never rejects. */
export const execTool: ToolRunner = (command, args) =>
  new Promise((resolve) => {
    execFile(
      command,
      [...args],
      { timeout: TOOL_TIMEOUT_MS, maxBuffer: 8 * 1024 * 1024, encoding: 'utf8', windowsHide: true },
      (error, stdout) => resolve(error ? null : stdout),
    );
  });

/** An empty parse result with one warning. */
export function nothingParsed(warning: string): ParsedDevices {
  return { devices: [], usage: [], warnings: [warning] };
}

/** Parses a non-negative number, or undefined for `[N/A]`, `NA`, `-` and other non-numbers. */
export function numberOrUndefined(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  if (!/^\d+(\.\d+)?$/.test(trimmed)) return undefined;
  return Number(trimmed);
}

/** Mebibytes to bytes (vendor tools' "MB"/"MiB" columns are both 1024² bytes). */
export const mib = (n: number): number => Math.round(n * 1024 * 1024);

/** Utilization percent to a 0..1 fraction, clamped. */
export const fraction = (percent: number | undefined): number =>
  percent === undefined ? 0 : Math.min(1, Math.max(0, percent / 100));
