/** Topic the agents publish their reports (heartbeats, status) to; key = node id. */
export const AGENT_REPORTS_TOPIC = 'hcn.agent-reports';

/** Topic carrying commands for the agents of one domain; key = node id. */
export const commandTopicFor = (domainId: string): string => `hcn.commands.${domainId}`;
