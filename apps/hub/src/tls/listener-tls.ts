import { parseConfig } from '@hcn/platform';
import type { NestApplicationOptions } from '@nestjs/common';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * Whether the hub's HTTPS listener asks callers for a client certificate:
 * `none` never; `request` asks, and the site-to-site federation routes refuse a caller whose certificate the CA does
 * not vouch for (the dashboard, the API and agents need none); `require` refuses any connection without one.
 */
export type ClientAuth = 'none' | 'request' | 'require';

/** The hub's HTTPS listener (PEM contents), on when HCN_HTTP_TLS_CERT and HCN_HTTP_TLS_KEY are set. */
export interface ListenerTls {
  readonly cert: string;
  readonly key: string;
  /** CA that signs the client certificates taken (mTLS); needed unless clientAuth is `none`. */
  readonly ca?: string;
  readonly clientAuth: ClientAuth;
}

const unsetIfEmpty = (v: unknown): unknown => (v === '' ? undefined : v);

/** What a PEM file holds, checked at start-up so a wrong file is named there, not at the first handshake. */
type PemKind = 'certificate' | 'private key';

function readPem(name: string, kind: PemKind, path: string, ctx: z.RefinementCtx): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    ctx.addIssue({ code: 'custom', message: `${name}: cannot read ${path} (${reason})` });
    return '';
  }
  try {
    if (kind === 'certificate') new X509Certificate(text);
    else createPrivateKey(text);
  } catch {
    ctx.addIssue({ code: 'custom', message: `${name}: ${path} is not a PEM ${kind}` });
  }
  return text;
}

/** An optional setting naming a PEM file: its contents, read and checked once (a certificate or a private key). */
export const pemFileSetting = (name: string, kind: PemKind = 'certificate') =>
  z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .transform((path, ctx) => readPem(name, kind, path, ctx))
      .optional(),
  );

const schema = z
  .object({
    HCN_HTTP_TLS_CERT: pemFileSetting('HCN_HTTP_TLS_CERT'),
    HCN_HTTP_TLS_KEY: pemFileSetting('HCN_HTTP_TLS_KEY', 'private key'),
    HCN_HTTP_TLS_CA: pemFileSetting('HCN_HTTP_TLS_CA'),
    HCN_HTTP_TLS_CLIENT_AUTH: z.preprocess(
      unsetIfEmpty,
      z
        .enum(['none', 'request', 'require'], {
          message: 'HCN_HTTP_TLS_CLIENT_AUTH: none, request (federation routes only) or require',
        })
        .default('none'),
    ),
  })
  .superRefine((c, ctx) => {
    const problem = (path: string, message: string) =>
      ctx.addIssue({ code: 'custom', path: [path], message });
    if ((c.HCN_HTTP_TLS_CERT === undefined) !== (c.HCN_HTTP_TLS_KEY === undefined))
      problem('HCN_HTTP_TLS_CERT', 'HCN_HTTP_TLS_CERT and HCN_HTTP_TLS_KEY go together (the HTTPS listener)');
    else if (
      c.HCN_HTTP_TLS_CERT &&
      c.HCN_HTTP_TLS_KEY &&
      !certMatchesKey(c.HCN_HTTP_TLS_CERT, c.HCN_HTTP_TLS_KEY)
    )
      problem('HCN_HTTP_TLS_KEY', 'is not the private key of HCN_HTTP_TLS_CERT');
    const https = c.HCN_HTTP_TLS_CERT !== undefined;
    if (!https && (c.HCN_HTTP_TLS_CA !== undefined || c.HCN_HTTP_TLS_CLIENT_AUTH !== 'none'))
      problem('HCN_HTTP_TLS_CA', 'client certificates need the HTTPS listener (HCN_HTTP_TLS_CERT and _KEY)');
    if (https && c.HCN_HTTP_TLS_CLIENT_AUTH !== 'none' && c.HCN_HTTP_TLS_CA === undefined)
      problem(
        'HCN_HTTP_TLS_CA',
        `HCN_HTTP_TLS_CLIENT_AUTH=${c.HCN_HTTP_TLS_CLIENT_AUTH} needs the CA of the client certificates`,
      );
  });

function certMatchesKey(cert: string, key: string): boolean {
  try {
    return new X509Certificate(cert).checkPrivateKey(createPrivateKey(key));
  } catch {
    return true; // unreadable: reported by the setting itself
  }
}

/** Reads and validates HCN_HTTP_TLS_*: undefined for a plain HTTP listener; throws ConfigError naming each problem. */
export function loadListenerTls(env: NodeJS.ProcessEnv): ListenerTls | undefined {
  const c = parseConfig('hub TLS', schema, env);
  if (!c.HCN_HTTP_TLS_CERT || !c.HCN_HTTP_TLS_KEY) return undefined;
  return {
    cert: c.HCN_HTTP_TLS_CERT,
    key: c.HCN_HTTP_TLS_KEY,
    ...(c.HCN_HTTP_TLS_CA ? { ca: c.HCN_HTTP_TLS_CA } : {}),
    clientAuth: c.HCN_HTTP_TLS_CLIENT_AUTH,
  };
}

/** Node's HTTPS server options for the listener: client certificates asked for unless `none`, refused only on `require`. */
export function httpsOptionsOf(tls: ListenerTls): NonNullable<NestApplicationOptions['httpsOptions']> {
  return {
    cert: tls.cert,
    key: tls.key,
    ...(tls.ca ? { ca: tls.ca } : {}),
    requestCert: tls.clientAuth !== 'none',
    rejectUnauthorized: tls.clientAuth === 'require',
  };
}
