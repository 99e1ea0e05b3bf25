/** Ask node `nodeId` to stop its agent gracefully. */
export class StopNodeCommand {
  constructor(
    readonly nodeId: string,
    readonly reason: string,
  ) {}
}
