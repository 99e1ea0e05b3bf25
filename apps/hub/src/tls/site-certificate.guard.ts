import { HcnError } from '@hcn/contracts';
import {
  CanActivate,
  ExecutionContext,
  Inject,
  Injectable,
  UseGuards,
  applyDecorators,
} from '@nestjs/common';
import type { Request } from 'express';
import { TLSSocket } from 'node:tls';
import type { HubConfig } from '../config';
import { HUB_CONFIG } from '../tokens';

/**
 * With client certificates asked for (HCN_HTTP_TLS_CLIENT_AUTH=request or require), a site-to-site route answers only
 * a caller whose certificate the configured CA vouches for: AUTH.CLIENT_CERTIFICATE_REQUIRED otherwise. Without them
 * (plain HTTP, or `none`) the route's own proof (join token, site credential, gossip MAC) is all it takes.
 */
@Injectable()
export class SiteCertificateGuard implements CanActivate {
  constructor(@Inject(HUB_CONFIG) private readonly config: HubConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const clientAuth = this.config.tls?.clientAuth ?? 'none';
    if (clientAuth === 'none') return true;
    const socket = context.switchToHttp().getRequest<Request>().socket;
    if (socket instanceof TLSSocket && socket.authorized) return true;
    throw new HcnError(
      'AUTH.CLIENT_CERTIFICATE_REQUIRED',
      'This federation route needs a client certificate signed by the CA this site trusts (mTLS)',
    );
  }
}

/** Marks a route other sites call (registration, summaries, gossip): mTLS applies to it when configured. */
export const SiteToSite = () => applyDecorators(UseGuards(SiteCertificateGuard));
