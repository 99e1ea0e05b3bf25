/**
 * Signed claim tokens, `<kind>.<base64url JSON claims>.<MAC>`: per-node bootstrap tokens (`boot`) and federation join
 * tokens (`fjoin`). The issuer's MAC covers `<kind>|<claims part>`; only the issuer, holding the key, can verify it.
 */

/** The claims' encoded form, the part of a signed token that its MAC covers. */
export function encodeSignedClaims(claims: object): string {
  return Buffer.from(JSON.stringify(claims)).toString('base64url');
}

/** What the MAC of a signed token of `kind` is computed over. */
export function signedTokenMacInput(kind: string, payload: string): string {
  return `${kind}|${payload}`;
}

/**
 * The decoded (NOT verified) claims of a token of `kind`, with the encoded part and the MAC it carries; undefined for
 * anything that is not such a token (other kind, extra parts, claims that are not a JSON object).
 */
export function readSignedToken(
  kind: string,
  token: string,
): { json: Record<string, unknown>; payload: string; mac: string } | undefined {
  const [prefix, payload, mac, ...rest] = token.split('.');
  if (prefix !== kind || !payload || !mac || rest.length > 0) return undefined;
  try {
    const json = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
    if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
    return { json: json as Record<string, unknown>, payload, mac };
  } catch {
    return undefined;
  }
}
