import { Node, hasRole, post } from '../api';
import { ConfirmAction } from '../components/ConfirmAction';
import { HistoryCharts } from '../components/HistoryCharts';
import { useApp } from '../live';

/** A selected node: drain and stop for admins (the role the API asks for), its history charts. */
export function NodePanel({ node, onClose }: { node: Node; onClose: () => void }) {
  const { session } = useApp();
  const path = `/v1/nodes/${node.nodeId}`;
  return (
    <div className="panel" data-testid="node-panel" data-node={node.nodeId}>
      <h3>
        {node.hostname} <span className="muted">{node.domainId}</span>{' '}
        <span className={`badge ${node.status}`} data-testid="node-panel-status">
          {node.draining ? 'draining' : node.status}
        </span>{' '}
        <button className="link" onClick={onClose}>
          close
        </button>
      </h3>
      {hasRole(session, 'admin') ? (
        <div className="actions" data-testid="node-actions">
          <ConfirmAction
            label="drain"
            question={`Place no new work on ${node.hostname}?`}
            testId="node-drain"
            disabled={node.draining}
            run={() => post(`${path}/drain`, { reason: `drained from the dashboard by ${session.name}` })}
          />
          <ConfirmAction
            label="stop"
            danger
            question={`Ask the agent on ${node.hostname} to stop?`}
            testId="node-stop"
            run={() => post(`${path}/stop`, { reason: `stopped from the dashboard by ${session.name}` })}
          />
        </div>
      ) : null}
      <HistoryCharts scope={{ nodeId: node.nodeId }} />
    </div>
  );
}
