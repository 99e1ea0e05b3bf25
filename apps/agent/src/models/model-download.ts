import { MODEL_FAILURES } from '@hcn/contracts';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ModelDownloadLimits } from './model-config';

/** Why a model could not be had: `reason` is the allocation's failure reason (a stable `MODEL.*` code first). */
export class ModelSourceError extends Error {
  constructor(
    readonly code: string,
    detail: string,
  ) {
    super(`${code}: ${detail}`);
  }
}

/** A URL as failure reasons show it: without its query (signatures, tokens), at most 200 characters. */
export function shownUrl(url: string): string {
  let shown = url;
  try {
    const parsed = new URL(url);
    shown = `${parsed.origin}${parsed.pathname}${parsed.search ? '?…' : ''}`;
  } catch {
    shown = url;
  }
  return shown.length > 200 ? `${shown.slice(0, 199)}…` : shown;
}

/** The download was cancelled (its allocation was asked to stop): nothing to report about it. */
export class ModelDownloadCancelled extends Error {}

/** A file name for the model from its URL's last path segment (letters, digits, `._-`), else `model`. */
export function modelFileName(url: string): string {
  let last = '';
  try {
    last = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
  } catch {
    last = '';
  }
  const name = last
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^[.]+/, '')
    .slice(-128);
  return name || 'model';
}

/**
 * Downloads `url` into `dir` (created, 0755; the file 0644, so the workload user reads it) under its URL's file name,
 * at most `maxBytes` (checked on Content-Length and while it streams) within `timeoutSeconds`; written as `.part`
 * and renamed when complete. Resolves with the file's path; rejects with a ModelSourceError (MODEL.DOWNLOAD_*), or
 * ModelDownloadCancelled when `signal` aborted it. A partial file never stays behind.
 */
export async function downloadModel(
  url: string,
  dir: string,
  limits: ModelDownloadLimits,
  signal: AbortSignal,
): Promise<string> {
  const { downloadFailed, downloadTooLarge, downloadTimeout } = MODEL_FAILURES;
  const timeout = AbortSignal.timeout(limits.timeoutSeconds * 1000);
  const both = AbortSignal.any([signal, timeout]);
  const path = join(dir, modelFileName(url));
  const part = `${path}.part`;
  const shown = shownUrl(url);
  const tooLarge = () =>
    new ModelSourceError(
      downloadTooLarge,
      `${shown} is larger than this agent's cap of ${limits.maxBytes} bytes`,
    );
  const failure = (error: unknown): Error => {
    if (error instanceof ModelSourceError) return error;
    if (signal.aborted) return new ModelDownloadCancelled('cancelled');
    if (timeout.aborted)
      return new ModelSourceError(
        downloadTimeout,
        `${shown} did not arrive within ${limits.timeoutSeconds} s`,
      );
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    return new ModelSourceError(downloadFailed, `${shown}: ${cause ?? (error as Error).message}`);
  };
  await mkdir(dir, { recursive: true, mode: 0o755 });
  try {
    const response = await fetch(url, { signal: both, redirect: 'follow' });
    if (!response.ok || !response.body) {
      await response.body?.cancel().catch(() => undefined);
      throw new ModelSourceError(downloadFailed, `${shown} answered HTTP ${response.status}`);
    }
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared > limits.maxBytes) {
      await response.body.cancel().catch(() => undefined);
      throw tooLarge();
    }
    const file = await open(part, 'w', 0o644);
    try {
      let bytes = 0;
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        bytes += chunk.byteLength;
        if (bytes > limits.maxBytes) throw tooLarge();
        await file.write(chunk);
      }
    } finally {
      await file.close();
    }
    await rename(part, path);
    return path;
  } catch (error) {
    await rm(part, { force: true });
    throw failure(error);
  }
}
