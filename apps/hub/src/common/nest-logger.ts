import { Logger as PinoNestLogger } from 'nestjs-pino';

/** Nest's own start-up chatter (modules, routes, gateways mapped), logged at debug rather than info. */
const NEST_CHATTER = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
  'WebSocketsController',
]);

/** nestjs-pino's LoggerService for `app.useLogger`: Nest's `Logger` calls become pino lines with a `context`. */
export class HubNestLogger extends PinoNestLogger {
  override log(message: unknown, ...optionalParams: unknown[]): void {
    const context = optionalParams[optionalParams.length - 1];
    if (typeof context === 'string' && NEST_CHATTER.has(context)) super.debug(message, ...optionalParams);
    else super.log(message, ...optionalParams);
  }
}
