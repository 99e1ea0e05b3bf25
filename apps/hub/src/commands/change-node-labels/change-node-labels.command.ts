/** Replace the labels of node `nodeId`. */
export class ChangeNodeLabelsCommand {
  constructor(
    readonly nodeId: string,
    readonly labels: Record<string, string>,
  ) {}
}
