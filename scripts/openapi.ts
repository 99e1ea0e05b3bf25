// `npm run openapi`: writes the hub's OpenAPI document to openapi.json at the repository root, in the canonical form
// (keys sorted) that apps/hub/src/openapi.e2e.spec.ts compares with the document a running hub serves. The document
// comes from the controllers' decorators alone: the hub module is built in Nest's preview mode (nothing started).
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadHubConfig } from '../apps/hub/src/config';
import { HubDependencies, HubModule } from '../apps/hub/src/hub.module';
import { canonicalOpenApiJson, openApiDocument } from '../apps/hub/src/ops-listener';

async function main(): Promise<void> {
  // placeholders: the module needs a valid configuration, and preview mode instantiates no provider
  const config = loadHubConfig({
    DATABASE_URL: 'postgres://openapi@localhost/openapi',
    HCN_JOIN_TOKEN: 'openapi-join-token-placeholder',
    HCN_AGENT_SECRET: 'openapi-agent-secret-placeholder-0123456789',
    HCN_ADMIN_TOKEN: 'openapi-admin-token-placeholder',
  });
  const app = await NestFactory.create(HubModule.register({ config } as HubDependencies), {
    preview: true,
    logger: ['error'], // not preview mode's banner
  });
  const file = join(__dirname, '..', 'openapi.json');
  writeFileSync(file, canonicalOpenApiJson(openApiDocument(app)()));
  await app.close();
  process.stdout.write(`wrote ${file}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
