import { inSpan, tracingActive } from '@hcn/platform';
import type { INestApplication } from '@nestjs/common';
import { CommandBus, ICommand } from '@nestjs/cqrs';

/**
 * When tracing is on, runs each command of the hub's CommandBus in a span `command <Name>` (a child of the request's
 * span): the events it appends carry that span's `traceparent`. Nothing changes when tracing is off.
 */
export function traceCommands(app: INestApplication): void {
  if (!tracingActive()) return;
  const bus = app.get(CommandBus);
  const execute = bus.execute.bind(bus) as (command: ICommand) => Promise<unknown>;
  bus.execute = ((command: ICommand) =>
    inSpan(`command ${command.constructor.name}`, {}, () => execute(command))) as CommandBus['execute'];
}
