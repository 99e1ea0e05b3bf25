import { HcnError } from '@hcn/contracts';
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { statusForError } from './error-status';

interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

function fromHttpException(exception: HttpException): [number, ErrorBody] {
  const status = exception.getStatus();
  const response = exception.getResponse() as { message?: string | string[] } | string;
  const message =
    typeof response === 'string' ? response : [response.message ?? exception.message].flat().join('; ');
  const code =
    status === 404
      ? 'REQUEST.ROUTE_NOT_FOUND'
      : status === 413
        ? 'REQUEST.TOO_LARGE'
        : status === 400
          ? 'REQUEST.MALFORMED'
          : `HTTP.${status}`;
  return [status, { error: { code, message } }];
}

/** Turns every error into `{ error: { code, message, details } }` with the status of its dotted code. */
@Catch()
export class HcnExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    let status: number;
    let body: ErrorBody;
    if (exception instanceof HcnError) {
      status = statusForError(exception);
      body = { error: { code: exception.code, message: exception.message, details: exception.details } };
    } else if (exception instanceof HttpException) {
      [status, body] = fromHttpException(exception);
    } else {
      status = 500;
      body = { error: { code: 'INTERNAL', message: 'Internal error' } };
      this.logger.error(exception instanceof Error ? exception.stack : String(exception));
    }
    response.status(status).json(body);
  }
}
