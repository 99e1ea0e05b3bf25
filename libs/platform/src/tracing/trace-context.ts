/**
 * The tracing port: spans and W3C trace context for the apps, on the OpenTelemetry API once an adapter has started
 * tracing (`startTracing`), and no-ops that load nothing before that (tracing is off by default).
 */
import type * as OtelApi from '@opentelemetry/api';

/** Attribute values a span takes. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** The kinds of span HCN starts. */
export type SpanKindName = 'server' | 'client' | 'producer' | 'consumer' | 'internal';

/** How a span starts: its kind, its parent (a W3C `traceparent`; else the active span) and attributes. */
export interface SpanOptions {
  readonly kind?: SpanKindName;
  readonly parent?: string;
  readonly attributes?: SpanAttributes;
}

/** A started span. */
export interface TraceSpan {
  /** Runs `fn` with this span active: spans, traceparents and log lines inside it are its children. */
  run<T>(fn: () => T): T;
  /** Names the span again (an HTTP span once routing has found the route template). */
  rename(name: string): void;
  /** Ends the span, failed when `error` is given. */
  end(outcome?: { readonly error?: unknown; readonly attributes?: SpanAttributes }): void;
}

let api: typeof OtelApi | undefined;

/** Turns the port on; called by the tracing adapter once its SDK is registered. */
export function activateTraceContext(): void {
  api = require('@opentelemetry/api') as typeof OtelApi;
}

/** Whether tracing is on in this process. */
export function tracingActive(): boolean {
  return api !== undefined;
}

const NO_SPAN: TraceSpan = { run: (fn) => fn(), rename: () => undefined, end: () => undefined };

const KINDS: Record<SpanKindName, number> = { internal: 0, server: 1, client: 2, producer: 3, consumer: 4 };

/** Starts a span (a no-op one when tracing is off). */
export function startSpan(name: string, options: SpanOptions = {}): TraceSpan {
  const otel = api;
  if (!otel) return NO_SPAN;
  const parent = options.parent
    ? otel.propagation.extract(otel.ROOT_CONTEXT, { traceparent: options.parent })
    : otel.context.active();
  const span = otel.trace
    .getTracer('hcn')
    .startSpan(
      name,
      { kind: KINDS[options.kind ?? 'internal'], attributes: defined(options.attributes) },
      parent,
    );
  const spanContext = otel.trace.setSpan(parent, span);
  return {
    run: (fn) => otel.context.with(spanContext, fn),
    rename: (next) => span.updateName(next),
    end: (outcome = {}) => {
      span.setAttributes(defined(outcome.attributes));
      if (outcome.error !== undefined) {
        const error = outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error));
        span.recordException(error);
        span.setStatus({ code: otel.SpanStatusCode.ERROR, message: error.message });
      }
      span.end();
    },
  };
}

/** Runs `fn` in a new span that ends when `fn` settles (failed if it throws); just `fn()` when tracing is off. */
export async function inSpan<T>(name: string, options: SpanOptions, fn: () => Promise<T> | T): Promise<T> {
  if (!api) return fn();
  const span = startSpan(name, options);
  try {
    const result = await span.run(fn);
    span.end();
    return result;
  } catch (error) {
    span.end({ error });
    throw error;
  }
}

/** The active span's W3C `traceparent`; undefined when tracing is off or no span is active. */
export function currentTraceparent(): string | undefined {
  if (!api || !api.trace.getSpan(api.context.active())) return undefined;
  const carrier: Record<string, string> = {};
  api.propagation.inject(api.context.active(), carrier);
  return carrier.traceparent;
}

/** `{ traceparent }` of the active span for message headers, `{}` when there is none. */
export function traceHeaders(): Record<string, string> {
  const traceparent = currentTraceparent();
  return traceparent ? { traceparent } : {};
}

/** `trace_id`/`span_id` of the active span for log lines, `{}` when there is none. */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  const span = api?.trace.getSpan(api.context.active());
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

function defined(attributes: SpanAttributes = {}): Record<string, string | number | boolean> {
  const result: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) result[key] = value;
  return result;
}
