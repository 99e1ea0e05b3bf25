import { HcnError } from '@hcn/contracts';
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { statusForError } from './error-status';

interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

const CODE_OF_STATUS: Record<number, string> = {
  400: 'REQUEST.MALFORMED',
  404: 'REQUEST.ROUTE_NOT_FOUND',
  413: 'REQUEST.TOO_LARGE',
  415: 'REQUEST.UNSUPPORTED_MEDIA_TYPE',
};

function fromHttpException(exception: HttpException): [number, ErrorBody] {
  const status = exception.getStatus();
  const response = exception.getResponse() as { message?: string | string[] } | string;
  const message =
    typeof response === 'string' ? response : [response.message ?? exception.message].flat().join('; ');
  return [status, { error: { code: CODE_OF_STATUS[status] ?? `HTTP.${status}`, message } }];
}

/**
 * A client error raised before any route ran, in the `http-errors` form (body-parser: a body over the limit, bad
 * JSON, an unknown charset): its 4xx status, or undefined for anything else.
 */
function clientErrorStatus(exception: unknown): number | undefined {
  const status = (exception as { status?: unknown; expose?: unknown } | null)?.status;
  const exposed = (exception as { expose?: unknown } | null)?.expose === true;
  return exposed && typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

/** Turns every error into `{ error: { code, message, details } }` with the status of its dotted code. */
@Catch()
export class HcnExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const clientStatus = clientErrorStatus(exception);
    let status: number;
    let body: ErrorBody;
    if (exception instanceof HcnError) {
      status = statusForError(exception);
      body = { error: { code: exception.code, message: exception.message, details: exception.details } };
    } else if (exception instanceof HttpException) {
      [status, body] = fromHttpException(exception);
    } else if (clientStatus !== undefined) {
      status = clientStatus;
      body = {
        error: { code: CODE_OF_STATUS[status] ?? `HTTP.${status}`, message: (exception as Error).message },
      };
    } else {
      status = 500;
      body = { error: { code: 'INTERNAL', message: 'Internal error' } };
      this.logger.error(exception instanceof Error ? exception.stack : String(exception));
    }
    response.status(status).json(body);
  }
}
