/** Ask node `nodeId` to take no new work. */
export class DrainNodeCommand {
  constructor(
    readonly nodeId: string,
    readonly reason: string,
  ) {}
}
