import { DynamicModule, INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { HcnExceptionFilter } from './common/hcn-exception.filter';
import { HubMetrics } from './common/metrics';
import { MetricsController } from './health/metrics.controller';
import { applySecurityHeaders } from './web/security-headers';

/** The OpenAPI document of the hub's API, built from the main app's controllers on first use. */
export function openApiDocument(api: INestApplication): () => OpenAPIObject {
  const info = new DocumentBuilder()
    .setTitle('HCN hub')
    .setDescription('Heterogeneous compute network hub: agents, nodes, domains, workloads, quotas, templates')
    .addBearerAuth()
    .setVersion('0.1.0')
    .build();
  return () => SwaggerModule.createDocument(api, info);
}

/** Serves Swagger UI at /docs and the document at /docs/openapi.json on `app`. */
export function serveDocs(app: INestApplication, document: () => OpenAPIObject): void {
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/openapi.json' });
}

/** The ops listener's Nest module: the metrics controller over the hub's registry. */
@Module({})
class OpsModule {
  static register(metrics: HubMetrics): DynamicModule {
    return {
      module: OpsModule,
      controllers: [MetricsController],
      providers: [{ provide: HubMetrics, useValue: metrics }],
    };
  }
}

/** A running ops listener (/metrics and /docs only). */
export interface OpsListener {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The second listener (HCN_OPS_HTTP_HOST/PORT): a small Nest app with only /metrics (the hub's registry) and
 * /docs (the main app's OpenAPI document), behind the same security headers; anything else is 404.
 */
export async function startOpsListener(
  address: { readonly host: string; readonly port: number },
  metrics: HubMetrics,
  document: () => OpenAPIObject,
): Promise<OpsListener> {
  const app = await NestFactory.create<NestExpressApplication>(OpsModule.register(metrics), {
    logger: ['error', 'warn'],
  });
  applySecurityHeaders(app);
  app.useGlobalFilters(new HcnExceptionFilter());
  serveDocs(app, document);
  await app.listen(address.port, address.host);
  const { port } = app.getHttpServer().address() as { port: number };
  return { url: `http://${address.host}:${port}`, close: () => app.close() };
}
