import type { RegisterNodeRequest } from '@hcn/contracts';

/** Register (or re-register) a node; the join token has been checked by the controller. */
export class RegisterNodeCommand {
  constructor(
    readonly request: Omit<RegisterNodeRequest, 'joinToken'> & {
      nodeId: string;
      labels: Record<string, string>;
      isHead: boolean;
    },
    readonly requestId: string,
  ) {}
}
