import { AcceptDelegationController } from '../commands/accept-delegation/accept-delegation.controller';
import { ControlDelegationController } from '../commands/control-delegation/control-delegation.controller';
import { DeregisterSiteController } from '../commands/deregister-site/deregister-site.controller';
import { FederationJoinTokenController } from '../commands/issue-federation-join-token/federation-join-token.controller';
import { RecordDelegationStatusController } from '../commands/record-delegation-status/record-delegation-status.controller';
import { RecordSiteSummaryController } from '../commands/record-site-summary/record-site-summary.controller';
import { RegisterSiteController } from '../commands/register-site/register-site.controller';
import { DelegationChainController } from '../queries/delegation-chain/delegation-chain.controller';
import { DelegationLogsController } from '../queries/delegation-logs/delegation-logs.controller';
import { SitesController } from '../queries/sites.controller';
import { FederationController } from './federation.controller';

/** Every controller of the federation API (`/v1/federation/...`), registered by the hub module. */
export const FEDERATION_CONTROLLERS = [
  FederationJoinTokenController,
  RegisterSiteController,
  RecordSiteSummaryController,
  DeregisterSiteController,
  SitesController,
  FederationController,
  AcceptDelegationController,
  DelegationChainController,
  ControlDelegationController,
  RecordDelegationStatusController,
  DelegationLogsController,
];
