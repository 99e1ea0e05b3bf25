import { createCipheriv, createDecipheriv, createHash, createHmac } from 'node:crypto';

const PREFIX = 's1:';

const aesKey = (key: string): Buffer => createHash('sha256').update(`hcn-seal|${key}`).digest();

/**
 * Encrypts a secret (AES-256-GCM). Deterministic: the nonce is an HMAC of the text, so the same secret seals to the
 * same text (a repeated submission stays the same spec); only equality of two sealed values shows.
 */
export function sealSecret(key: string, plaintext: string): string {
  const iv = createHmac('sha256', aesKey(key)).update(plaintext).digest().subarray(0, 12);
  const cipher = createCipheriv('aes-256-gcm', aesKey(key), iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${PREFIX}${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}

/** True for a value `sealSecret` made (with any key). */
export function isSealed(value: string): boolean {
  return value.startsWith(PREFIX);
}

/** Decrypts a sealed secret; throws when it was sealed with another key or changed. */
export function openSecret(key: string, sealed: string): string {
  if (!isSealed(sealed)) throw new Error('not a sealed value');
  const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', aesKey(key), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
