import { createHash } from 'node:crypto';

/** Metadata keys the store writes itself (callers cannot set them); they are not part of an event's content. */
export const HASH_METADATA_KEYS = ['prevHash', 'hash'] as const;

/** What an event's content hash covers: everything the writer chose, nothing the store assigns. */
export interface HashedContent {
  readonly eventId: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: unknown;
}

/**
 * Canonical JSON: object keys sorted (by UTF-16 code units) at every depth, no whitespace, `undefined` members
 * dropped, numbers in JavaScript's shortest round-trip form. Stable across a jsonb round trip: PostgreSQL
 * reorders keys and may print numbers differently, but they parse back to the same values.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const toJson = (value as { toJSON?: () => unknown }).toJSON;
  if (typeof toJson === 'function') return canonicalJson(toJson.call(value));
  if (Array.isArray(value))
    return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  const record = value as Record<string, unknown>;
  const members = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
  return `{${members.join(',')}}`;
}

/** SHA-256 of a UTF-8 string, as lowercase hex. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The hash of an event's content (id, type, data, metadata without the store's hash keys). */
export function contentHash(event: HashedContent): string {
  return sha256Hex(
    canonicalJson({
      eventId: event.eventId,
      type: event.type,
      data: event.data,
      metadata: withoutHashKeys(event.metadata),
    }),
  );
}

/** A link of a stream's chain: sha256 over the previous hash and the content hash (hex text, concatenated). */
export function chainHash(prevHash: string, content: string): string {
  return sha256Hex(prevHash + content);
}

/** The `prevHash` of a stream's first event: sha256 of its stream id (binds the chain to its stream). */
export function genesisHash(streamId: string): string {
  return sha256Hex(streamId);
}

/** `metadata` without the keys the store writes (`prevHash`, `hash`); other values are returned as they are. */
export function withoutHashKeys(metadata: unknown): unknown {
  if (!metadata || typeof metadata !== 'object' || Array.isArray(metadata)) return metadata;
  const copy: Record<string, unknown> = { ...(metadata as Record<string, unknown>) };
  for (const key of HASH_METADATA_KEYS) delete copy[key];
  return copy;
}

/** Hashes of one appended batch: each event's prevHash and hash, folded in order from `prev`. */
export function foldChain(
  prev: string,
  contentHashes: readonly string[],
): Array<{ prevHash: string; hash: string }> {
  let last = prev;
  return contentHashes.map((content) => {
    const link = { prevHash: last, hash: chainHash(last, content) };
    last = link.hash;
    return link;
  });
}
