import { siteIdSchema } from '@hcn/contracts';
import { Body, Controller, Delete, Param } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { RequireRole } from '../../auth/auth.guard';
import { CurrentPrincipal } from '../../auth/current-principal';
import type { Principal } from '../../auth/principal';
import { parseBody } from '../../common/parse-body';
import { Federation } from '../../federation/federation';
import { reasonBodySchema } from '../node-command';

/** `DELETE /v1/federation/sites/:id` (admin): remove a site; its credential is void, its history stays. */
@ApiTags('federation')
@RequireRole('admin')
@Controller('v1/federation/sites')
export class DeregisterSiteController {
  constructor(private readonly federation: Federation) {}

  @Delete(':id')
  @ApiOperation({
    summary: 'Deregister a site: its credential is void, summaries and gossip from it are refused',
  })
  @ApiBody({ schema: z.toJSONSchema(reasonBodySchema, { io: 'input' }) as object, required: false })
  async deregister(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: unknown) {
    const siteId = parseBody(siteIdSchema, id, 'FEDERATION.SITE_ID');
    const { reason } = parseBody(reasonBodySchema, body, 'FEDERATION.DEREGISTER');
    const command = { type: 'DeregisterSite' as const, siteId, reason: reason || 'deregistered by an admin' };
    const events = await this.federation.registry.run(command, { kind: 'user', id: principal.name });
    return { siteId, events };
  }
}
