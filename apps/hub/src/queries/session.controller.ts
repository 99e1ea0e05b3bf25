import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireRole } from '../auth/auth.guard';
import { CurrentPrincipal } from '../auth/current-principal';
import type { Principal } from '../auth/principal';

/** Who the presented token is: the dashboard picks its change-feed rooms from the namespaces. */
@ApiTags('session')
@RequireRole('viewer')
@Controller('v1/session')
export class SessionController {
  @Get()
  @ApiOperation({ summary: "The calling token's name, role and namespaces (`*` = all)" })
  whoami(@CurrentPrincipal() principal: Principal) {
    return { name: principal.name, role: principal.role, namespaces: principal.namespaces };
  }
}
