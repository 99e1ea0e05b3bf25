import { siteIdSchema, siteUrlSchema } from '@hcn/contracts';
import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { Public } from '../../auth/auth.guard';
import { parseBody } from '../../common/parse-body';
import { SiteToSite } from '../../tls/site-certificate.guard';
import { Federation } from '../../federation/federation';
import type { RegisterSiteResponse } from '../../federation/site-registry';

/** Body of a child site's registration: its join token, id, and optionally name, address and regions. */
export const registerSiteBodySchema = z
  .object({
    joinToken: z.string().min(1).max(4096),
    siteId: siteIdSchema,
    name: z.string().min(1).max(200).optional(),
    url: siteUrlSchema.optional(),
    regions: z.array(z.string().min(1).max(64)).max(256).optional(),
  })
  .strict();

/** `POST /v1/federation/sites`: a child site registers with this (parent) site using a federation join token. */
@ApiTags('federation')
@Public()
@ApiSecurity({}) // anonymous: the join token in the body is the proof
@Controller('v1/federation')
export class RegisterSiteController {
  constructor(private readonly federation: Federation) {}

  @Post('sites')
  @SiteToSite()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Register a child site with a federation join token; returns its site credential (shown once)',
  })
  @ApiBody({ schema: z.toJSONSchema(registerSiteBodySchema, { io: 'input' }) as object })
  register(@Body() body: unknown): Promise<RegisterSiteResponse> {
    return this.federation.registry.register(parseBody(registerSiteBodySchema, body, 'FEDERATION.REGISTER'));
  }
}
