import { HcnError, siteIdOfCredential, siteIdSchema, siteSummarySchema } from '@hcn/contracts';
import { Body, Controller, Headers, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { bearer } from '../../auth/agent-credentials';
import { Public } from '../../auth/auth.guard';
import { parseBody } from '../../common/parse-body';
import { SiteToSite } from '../../tls/site-certificate.guard';
import { Federation } from '../../federation/federation';

/**
 * The site a credential speaks for, when it is this site's own path: AUTH.SITE_CREDENTIAL_REQUIRED without one,
 * AUTH.INVALID_SITE_CREDENTIAL for anything that is not a site credential, AUTH.SITE_CREDENTIAL_FOREIGN for another
 * site's (the decider then compares its digest with the registered one).
 */
export function credentialFor(siteId: string, authorization: string | undefined): string {
  const credential = bearer(authorization);
  if (!credential)
    throw new HcnError(
      'AUTH.SITE_CREDENTIAL_REQUIRED',
      'A site credential is required: Authorization: Bearer <credential>',
    );
  const named = siteIdOfCredential(credential);
  if (!named)
    throw new HcnError('AUTH.INVALID_SITE_CREDENTIAL', 'Missing, expired or invalid site credential');
  if (named !== siteId)
    throw new HcnError('AUTH.SITE_CREDENTIAL_FOREIGN', `This credential is not site ${siteId}'s`, { siteId });
  return credential;
}

/** `POST /v1/federation/sites/:id/summaries`: a child site reports its summary with its own site credential. */
@ApiTags('federation')
@Public()
@ApiSecurity('bearer') // the child's site credential
@Controller('v1/federation/sites')
export class RecordSiteSummaryController {
  constructor(private readonly federation: Federation) {}

  @Post(':id/summaries')
  @SiteToSite()
  @HttpCode(202)
  @ApiOperation({ summary: "A child site's summary (its own id only, with its site credential)" })
  @ApiBody({ schema: z.toJSONSchema(siteSummarySchema, { io: 'input' }) as object })
  async record(
    @Param('id') id: string,
    @Headers('authorization') authorization: string | undefined,
    @Body() body: unknown,
  ): Promise<{ siteId: string; receivedAt: string }> {
    const siteId = parseBody(siteIdSchema, id, 'FEDERATION.SITE_ID');
    const credential = credentialFor(siteId, authorization);
    const summary = parseBody(siteSummarySchema, body, 'FEDERATION.SUMMARY');
    const receivedAt = await this.federation.registry.recordSummary(siteId, credential, summary);
    this.federation.liveness.heard(siteId, receivedAt.getTime());
    return { siteId, receivedAt: receivedAt.toISOString() };
  }
}
