import { HcnError } from '@hcn/contracts';
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { statusForError } from './error-status';
import { PROBLEM_CONTENT_TYPE, RETRY_AFTER_SECONDS, problemOf } from './problem';

/** What an error answers before it becomes a problem: status, dotted code, message, details. */
interface ErrorAnswer {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

const CODE_OF_STATUS: Record<number, string> = {
  400: 'REQUEST.MALFORMED',
  404: 'REQUEST.ROUTE_NOT_FOUND',
  413: 'REQUEST.TOO_LARGE',
  415: 'REQUEST.UNSUPPORTED_MEDIA_TYPE',
};

function fromHttpException(exception: HttpException): ErrorAnswer {
  const status = exception.getStatus();
  const response = exception.getResponse() as { message?: string | string[] } | string;
  const message =
    typeof response === 'string' ? response : [response.message ?? exception.message].flat().join('; ');
  return { status, code: CODE_OF_STATUS[status] ?? `HTTP.${status}`, message };
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

/**
 * Turns every error into an RFC 9457 problem (`application/problem+json`: type, title, status, detail, instance, and
 * the dotted `code` and its `details` as extension members) with the status of its dotted code; a 503 also says
 * `Retry-After`.
 */
@Catch()
export class HcnExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<Response>();
    const request = http.getRequest<Request>();
    const answer = this.answerOf(exception);
    const path = (request.originalUrl ?? request.url ?? '/').split('?')[0];
    if (answer.status === 503) response.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
    response
      .status(answer.status)
      .type(PROBLEM_CONTENT_TYPE)
      .json(problemOf(answer.status, answer.code, answer.message, path, answer.details));
  }

  private answerOf(exception: unknown): ErrorAnswer {
    if (exception instanceof HcnError) {
      const { code, message, details } = exception;
      return { status: statusForError(exception), code, message, details };
    }
    if (exception instanceof HttpException) return fromHttpException(exception);
    const status = clientErrorStatus(exception);
    if (status !== undefined) {
      const code = CODE_OF_STATUS[status] ?? `HTTP.${status}`;
      return { status, code, message: (exception as Error).message };
    }
    this.logger.error(exception instanceof Error ? exception.stack : String(exception));
    return { status: 500, code: 'INTERNAL', message: 'Internal error' };
  }
}
