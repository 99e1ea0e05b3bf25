import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import type { AuthenticatedRequest } from './auth.guard';
import type { Principal } from './principal';

/** Injects the authenticated principal of the request into a controller method. */
export const CurrentPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Principal => {
    const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
    if (!principal) throw new Error('No principal: route is public or the guard did not run');
    return principal;
  },
);
