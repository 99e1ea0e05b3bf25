import * as crypto from 'node:crypto';

/** Metadata keys the store writes itself (callers cannot set them); they are not part of an event's content. */
export const HASH_METADATA_KEYS = ['prevHash', 'hash'] as const;
const HASH_KEYS: ReadonlySet<string> = new Set(HASH_METADATA_KEYS);

/** What an event's content hash covers: everything the writer chose, nothing the store assigns. */
export interface HashedContent {
  readonly eventId: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: unknown;
}

/**
 * Canonical JSON: object keys sorted (by UTF-16 code units) at every depth, no whitespace, members whose value
 * is `undefined` (or a function) dropped, array holes as null, numbers in JavaScript's shortest round-trip form,
 * `toJSON` honoured. Stable across a jsonb round trip: PostgreSQL reorders keys and may print numbers
 * differently, but they parse back to the same values. `skip` names top-level keys to leave out.
 */
export function canonicalJson(value: unknown, skip?: ReadonlySet<string>): string {
  if (typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (value === null) return 'null';
  if (Array.isArray(value)) return canonicalArray(value);
  const toJson = (value as { toJSON?: () => unknown }).toJSON;
  if (typeof toJson === 'function') return canonicalJson(toJson.call(value));
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length > 1) keys.sort();
  let out = '{';
  let separator = '';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const member = record[key];
    if (member === undefined || typeof member === 'function' || skip?.has(key)) continue;
    out += separator + quotedKey(key) + ':' + canonicalJson(member);
    separator = ',';
  }
  return out + '}';
}

function canonicalArray(values: readonly unknown[]): string {
  let out = '[';
  for (let i = 0; i < values.length; i++) out += (i > 0 ? ',' : '') + canonicalJson(values[i]);
  return out + ']';
}

/** Keys repeat from event to event (they come from schemas), so their JSON form is cached. */
const quotedKeys = new Map<string, string>();

function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (quotedKeys.size < 10_000) quotedKeys.set(key, quoted);
  }
  return quoted;
}

type OneShotHash = (algorithm: string, data: string | Buffer, encoding: 'hex') => string;
const oneShot = (crypto as unknown as { hash?: OneShotHash }).hash;

/** SHA-256 of a string (UTF-8) or bytes, as lowercase hex; Node's one-shot `crypto.hash` where it exists. */
export function sha256Hex(data: string | Buffer): string {
  return oneShot ? oneShot('sha256', data, 'hex') : crypto.createHash('sha256').update(data).digest('hex');
}

/** The hash of an event's content: canonical JSON of its id, type, data and metadata (less the hash keys). */
export function contentHash(event: HashedContent): string {
  return contentHashOfJson(
    event.eventId,
    event.type,
    canonicalJson(event.data),
    canonicalJson(event.metadata, HASH_KEYS),
  );
}

/** contentHash from the canonical JSON of data and of metadata (without hash keys), when already made. */
export function contentHashOfJson(
  eventId: string,
  type: string,
  dataJson: string,
  metadataJson: string,
): string {
  const eventIdJson = JSON.stringify(eventId);
  const typeJson = JSON.stringify(type);
  return sha256Hex(
    `{"data":${dataJson},"eventId":${eventIdJson},"metadata":${metadataJson},"type":${typeJson}}`,
  );
}

/** A link of a stream's chain: sha256 over the previous hash's and the content hash's 32 bytes (hex in, hex out). */
export function chainHash(prevHash: string, content: string): string {
  return sha256Hex(Buffer.from(prevHash + content, 'hex'));
}

/** The `prevHash` of a stream's first event: sha256 of its stream id (binds the chain to its stream). */
export function genesisHash(streamId: string): string {
  return sha256Hex(streamId);
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
