import { HcnError } from '@hcn/contracts';
import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { AgentCredentials, bearer } from './agent-credentials';
import { ApiTokens } from './api-tokens';
import { Principal, Role, hasRole } from './principal';

const ROLE_KEY = 'hcn:role';
const PUBLIC_KEY = 'hcn:public';

/** The weakest role a route needs (on a controller or a handler). */
export const RequireRole = (role: Role) => SetMetadata(ROLE_KEY, role);
/** Marks a route that needs no API token (agent registration, health, metrics, the dashboard page). */
export const Public = () => SetMetadata(PUBLIC_KEY, true);

/** Request with the authenticated principal attached. */
export interface AuthenticatedRequest extends Request {
  principal?: Principal;
}

/** Checks the bearer token of every user API call against the configured tokens and the route's role. */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: ApiTokens,
    private readonly credentials: AgentCredentials,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, targets)) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const principal = this.tokens.authenticate(bearer(request.headers.authorization), (token) => {
      try {
        this.credentials.nodeIdOf(token);
        return true;
      } catch {
        return false;
      }
    });
    const role = this.reflector.getAllAndOverride<Role>(ROLE_KEY, targets) ?? 'admin';
    if (!hasRole(principal, role)) {
      throw new HcnError('AUTH.FORBIDDEN', `Token ${principal.name} (${principal.role}) needs role ${role}`, {
        role,
      });
    }
    request.principal = principal;
    return true;
  }
}
