import { siteIdSchema } from '@hcn/contracts';
import { Body, Controller, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { RequireRole } from '../../auth/auth.guard';
import { CurrentPrincipal } from '../../auth/current-principal';
import type { Principal } from '../../auth/principal';
import { parseBody } from '../../common/parse-body';
import { Federation } from '../../federation/federation';

/** Body of a federation join token request: the child site it is for and its lifetime. */
export const federationJoinTokenBodySchema = z
  .object({
    siteId: siteIdSchema,
    ttlSeconds: z
      .number()
      .int()
      .min(60)
      .max(30 * 24 * 3600)
      .default(24 * 3600),
  })
  .strict();

/** `POST /v1/federation/join-tokens` (admin): a token that registers one child site with this one. */
@ApiTags('federation')
@RequireRole('admin')
@Controller('v1/federation')
export class FederationJoinTokenController {
  constructor(private readonly federation: Federation) {}

  @Post('join-tokens')
  @ApiOperation({
    summary: "A token that registers one child site with this site (the child's HCN_FEDERATION_JOIN_TOKEN)",
  })
  @ApiBody({ schema: z.toJSONSchema(federationJoinTokenBodySchema, { io: 'input' }) as object })
  issue(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    const request = parseBody(federationJoinTokenBodySchema, body, 'FEDERATION.JOIN_TOKEN');
    return this.federation.registry.issueJoinToken(request.siteId, request.ttlSeconds, {
      kind: 'user',
      id: principal.name,
    });
  }
}
