import { HcnError } from '@hcn/contracts';
import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';

/** True when the request carries a body (a non-zero length, or a chunked one), as HTTP defines it. */
function hasBody(request: Request): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * A PUT replaces a resource with its body: one without a body is refused (400 REQUEST.BODY_REQUIRED) instead of
 * replacing the resource with every default.
 */
@Injectable()
export class RequireBodyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<Request>();
    if (request.method === 'PUT' && !hasBody(request))
      throw new HcnError('REQUEST.BODY_REQUIRED', `${request.method} ${request.path} needs a JSON body`);
    return next.handle();
  }
}
