import { DynamicModule, INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { HcnExceptionFilter } from './common/hcn-exception.filter';
import { withApiConventions } from './common/openapi-conventions';
import { HubMetrics } from './common/metrics';
import { MetricsController } from './health/metrics.controller';
import { applySecurityHeaders } from './web/security-headers';

/** The security scheme every operation requires unless it declares its own (`@ApiSecurity({})`: anonymous). */
const BEARER = 'bearer';

/**
 * The OpenAPI 3.1 document of the hub's API, built from the main app's controllers on first use: request schemas
 * are zod's JSON Schema 2020-12 (3.1's dialect) without their `$schema`, bearer auth applies to every operation,
 * and every operation answers errors as RFC 9457 problems (`Problem`).
 */
export function openApiDocument(api: INestApplication): () => OpenAPIObject {
  const info = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('HCN hub')
    .setDescription('Heterogeneous compute network hub: agents, nodes, domains, workloads, quotas, templates')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'an API token (HCN_ADMIN_TOKEN, HCN_API_TOKENS)' },
      BEARER,
    )
    .addSecurityRequirements(BEARER)
    .setVersion('0.1.0')
    .build();
  let document: OpenAPIObject | undefined;
  return () => (document ??= normalizeOpenApi(SwaggerModule.createDocument(api, info)));
}

/** `$schema` of the embedded JSON Schemas dropped, the API's conventions (errors, pages, headers) added. */
function normalizeOpenApi(document: OpenAPIObject): OpenAPIObject {
  return withApiConventions(withoutSchemaDialect(document) as OpenAPIObject);
}

/** A deep copy without `$schema` members (3.1's dialect is JSON Schema 2020-12, zod's, so they add nothing). */
function withoutSchemaDialect(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSchemaDialect);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, member]) => key !== '$schema' || typeof member !== 'string')
      .map(([key, member]) => [key, withoutSchemaDialect(member)]),
  );
}
/** The document as committed in openapi.json (`npm run openapi`): keys sorted at every level, 2-space indents. */
export function canonicalOpenApiJson(document: unknown): string {
  const sorted = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sorted)
      : typeof value === 'object' && value !== null
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
          )
        : value;
  return `${JSON.stringify(sorted(document), null, 2)}\n`;
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
