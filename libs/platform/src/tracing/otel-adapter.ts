import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { hcnVersion } from '../metrics';
import { activateTraceContext } from './trace-context';
import type { RunningTracing, TracingSettings } from './tracing';

/**
 * The tracing adapter, the only module that imports the OpenTelemetry SDK: a Node tracer provider (AsyncLocalStorage
 * context, W3C trace-context propagation) exporting batches over OTLP/HTTP (JSON) to the endpoint the standard
 * OTEL_EXPORTER_OTLP_* variables name.
 */
export function startOtelTracing(settings: TracingSettings): RunningTracing {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      'service.name': settings.serviceName,
      'service.version': hcnVersion(),
    }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  activateTraceContext();
  return { flush: () => provider.forceFlush(), shutdown: () => provider.shutdown() };
}
