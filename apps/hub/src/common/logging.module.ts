import type { Logger } from '@hcn/platform';
import { DynamicModule, INestApplication, Module, RequestMethod } from '@nestjs/common';
import { LoggerModule, PinoLogger } from 'nestjs-pino';
import { HubNestLogger } from './nest-logger';

/** The hub's root module: its own module beside nestjs-pino's, which binds each request's logger for Nest's Logger. */
@Module({})
export class HubRootModule {
  /** `hub` with nestjs-pino on `logger` (the request lines themselves come from `requestLogging`). */
  static of(hub: DynamicModule, logger: Logger): DynamicModule {
    return {
      module: HubRootModule,
      imports: [
        hub,
        LoggerModule.forRoot({
          pinoHttp: { logger },
          useExisting: true,
          forRoutes: [{ path: '{*splat}', method: RequestMethod.ALL }],
        }),
      ],
    };
  }
}

/** Sends Nest's own and every `new Logger(context)` call of the process to the hub's pino logger. */
export async function useHubLogger(app: INestApplication): Promise<void> {
  app.useLogger(new HubNestLogger(await app.resolve(PinoLogger), {}));
}
