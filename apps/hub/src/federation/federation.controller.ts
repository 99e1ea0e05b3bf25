import { HcnError } from '@hcn/contracts';
import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { Public, RequireRole } from '../auth/auth.guard';
import { parseBody } from '../common/parse-body';
import { SiteToSite } from '../tls/site-certificate.guard';
import { Federation } from './federation';
import { gossipEnvelopeSchema } from './gossip/gossip-envelope';

/**
 * Federation links of this site: the gossip endpoint other members push to (signed with the federation secret), and
 * for operators the live member list and the state of the link to the parent.
 */
@ApiTags('federation')
@Controller('v1/federation')
export class FederationController {
  constructor(private readonly federation: Federation) {}

  @Post('gossip')
  @SiteToSite()
  @Public()
  @ApiSecurity({}) // signed with the federation's gossip secret instead
  @HttpCode(200)
  @ApiOperation({
    summary: 'Gossip from another member (push, or anti-entropy sync answered in kind); signed',
  })
  gossip(@Body() body: unknown) {
    const gossip = this.federation.gossip;
    if (!gossip) throw new HcnError('FEDERATION.GOSSIP_OFF', 'This site does not gossip');
    return gossip.receive(parseBody(gossipEnvelopeSchema, body, 'FEDERATION.GOSSIP'));
  }

  @Get('members')
  @RequireRole('viewer')
  @ApiOperation({
    summary: 'The gossip members this site holds now (live or aged out), with their summaries',
  })
  members() {
    return {
      siteId: this.federation.config.siteId ?? null,
      gossiping: this.federation.gossip !== undefined,
      items: this.federation.gossip?.members() ?? [],
    };
  }

  @Get('link')
  @RequireRole('viewer')
  @ApiOperation({ summary: "This site's link to its parent: registered, last summary sent, last error" })
  link() {
    return { siteId: this.federation.config.siteId ?? null, parent: this.federation.link?.status() ?? null };
  }
}
