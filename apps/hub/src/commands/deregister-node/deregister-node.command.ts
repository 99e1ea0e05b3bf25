/** Remove node `nodeId` from the fleet (its history stays in the log). */
export class DeregisterNodeCommand {
  constructor(
    readonly nodeId: string,
    readonly reason: string,
  ) {}
}
