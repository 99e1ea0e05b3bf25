import { sameJson } from '../equality';
import { DEFAULT_MIN_DEVICE_HEALTH } from '@hcn/contracts';
import type { DeviceGrant, EventDataOf, ResourceAmounts } from '@hcn/contracts';
import { EventTypes, defineDecider } from '../decider';
import { DomainError, assertNever } from '../errors';
import { NO_RESOURCES, RESOURCE_KINDS, shortfalls, retotal } from '../resources';
import type { NodeCommand, NodeEvent } from './node.commands';
import { NodeState, initialNodeState } from './node.state';

function sameRegistration(state: NodeState, next: NodeEvent & { type: 'NodeRegistered' }): boolean {
  return sameJson(state.registration, next.data);
}

/** A node that is not registered (never, or no more) refuses every command about it. */
function unknownNode(state: NodeState, nodeId: string): DomainError | undefined {
  if (state.status === 'unregistered')
    return new DomainError('NODE.NOT_FOUND', `Node ${nodeId} is not registered`, { nodeId });
  if (state.status === 'deregistered')
    return new DomainError('NODE.DEREGISTERED', `Node ${nodeId} has been deregistered`, { nodeId });
  return undefined;
}

/** Why a command on one node is refused, or undefined when it is accepted. */
export function validateNode(command: NodeCommand, state: NodeState): DomainError | undefined {
  switch (command.type) {
    case 'RegisterNode':
    case 'CheckLiveness':
    case 'ReleaseCapacity':
      return undefined;
    case 'ObserveHeartbeat':
    case 'RequestDrain':
    case 'RequestStop':
    case 'ChangeLabels':
    case 'Deregister':
    case 'ObserveDeviceHealth':
      return unknownNode(state, command.nodeId);
    case 'ReserveCapacity':
      return reservationRefusal(command, state);
    default:
      return assertNever(command);
  }
}

/** Decides which events an accepted command causes on one node. */
function decideAcceptedNode(command: NodeCommand, state: NodeState): NodeEvent[] {
  switch (command.type) {
    case 'RegisterNode': {
      const event: NodeEvent & { type: 'NodeRegistered' } = {
        type: 'NodeRegistered',
        data: command.registration,
      };
      if (state.status === 'unregistered' || state.status === 'deregistered') return [event];
      if (sameRegistration(state, event) && state.status === 'online') return [];
      return [{ type: 'NodeReregistered', data: command.registration }];
    }
    case 'ObserveHeartbeat':
      return state.status === 'offline'
        ? [{ type: 'NodeCameOnline', data: { nodeId: command.nodeId, seenAt: command.seenAt } }]
        : [];
    case 'CheckLiveness': {
      if (state.status !== 'online') return [];
      const lastSeen = command.lastSeenAt ?? state.lastSeenAt ?? null;
      const silentFor = lastSeen ? Date.parse(command.now) - Date.parse(lastSeen) : Number.POSITIVE_INFINITY;
      if (silentFor <= command.ttlSeconds * 1000) return [];
      return [
        {
          type: 'NodeWentOffline',
          data: { nodeId: command.nodeId, lastSeenAt: lastSeen, ttlSeconds: command.ttlSeconds },
        },
      ];
    }
    case 'RequestDrain':
      return state.draining
        ? []
        : [{ type: 'NodeDrainRequested', data: { nodeId: command.nodeId, reason: command.reason } }];
    case 'RequestStop':
      return [{ type: 'NodeStopRequested', data: { nodeId: command.nodeId, reason: command.reason } }];
    case 'ChangeLabels':
      if (sameJson(state.labels, command.labels)) return [];
      return [{ type: 'NodeLabelsChanged', data: { nodeId: command.nodeId, labels: command.labels } }];
    case 'Deregister':
      return [{ type: 'NodeDeregistered', data: { nodeId: command.nodeId, reason: command.reason } }];
    case 'ReserveCapacity':
      return reserve(command, state);
    case 'ObserveDeviceHealth':
      return observeDeviceHealth(command, state);
    case 'ReleaseCapacity':
      if (!state.reservations.has(command.allocationId)) return [];
      return [
        {
          type: 'CapacityReleased',
          data: { nodeId: command.nodeId, allocationId: command.allocationId, reason: command.reason },
        },
      ];
    default:
      return assertNever(command);
  }
}

/** What the node has in total (CPU in millicores). */
export function nodeCapacity(state: NodeState): ResourceAmounts {
  const r = state.registration;
  return r
    ? { cpuMillis: r.cpuCores * 1000, memoryBytes: r.memoryBytes, accelerators: r.accelerators }
    : NO_RESOURCES;
}

/** What is reserved on the node now. */
export function nodeReserved(state: NodeState): ResourceAmounts {
  return state.reserved;
}

/** Why a reservation is refused: an unknown, offline or draining node, too little room, devices not free. */
function reservationRefusal(
  command: NodeCommand & { type: 'ReserveCapacity' },
  state: NodeState,
): DomainError | undefined {
  const unknown = unknownNode(state, command.nodeId);
  if (unknown || state.reservations.has(command.allocationId)) return unknown;
  const details = { nodeId: command.nodeId, allocationId: command.allocationId };
  if (state.status !== 'online')
    return new DomainError('NODE.OFFLINE', `Node ${command.nodeId} is offline`, details);
  if (state.draining) return new DomainError('NODE.DRAINING', `Node ${command.nodeId} is draining`, details);
  return (
    shortfallRefusal(command, state, details) ?? deviceGrantRefusal(state, command.devices ?? [], details)
  );
}

function shortfallRefusal(
  command: NodeCommand & { type: 'ReserveCapacity' },
  state: NodeState,
  details: Record<string, unknown>,
): DomainError | undefined {
  const capacity = nodeCapacity(state);
  const reserved = nodeReserved(state);
  const free = {
    cpuMillis: capacity.cpuMillis - reserved.cpuMillis,
    memoryBytes: capacity.memoryBytes - reserved.memoryBytes,
    accelerators: capacity.accelerators - reserved.accelerators,
  };
  const missing = shortfalls(command.resources, free);
  if (missing.length === 0) return undefined;
  return new DomainError(
    'NODE.INSUFFICIENT_CAPACITY',
    `Node ${command.nodeId} cannot fit: ${missing.join('; ')}`,
    { ...details, missing },
  );
}

function reserve(command: NodeCommand & { type: 'ReserveCapacity' }, state: NodeState): NodeEvent[] {
  if (state.reservations.has(command.allocationId)) return [];
  const { nodeId, allocationId, workloadId, resources, devices } = command;
  if (!devices?.length)
    return [{ type: 'CapacityReserved', data: { nodeId, allocationId, workloadId, resources } }];
  return [
    {
      type: 'CapacityReserved',
      data: { nodeId, allocationId, workloadId, resources, devices: [...devices] },
    },
  ];
}

/** Device health below which scheduling excludes a device by default. */
export const DEVICE_HEALTH_THRESHOLD = DEFAULT_MIN_DEVICE_HEALTH;
/** A reported health this far from the known one is recorded even without crossing the threshold. */
export const DEVICE_HEALTH_STEP = 10;

/** A device's health as the node stream knows it: the last recorded change, else the registration's. */
export function knownDeviceHealth(state: NodeState, vendor: string, index: number): number | undefined {
  const moved = state.deviceHealth[`${vendor}/${index}`];
  if (moved !== undefined) return moved;
  return state.registration?.devices.find((d) => d.vendor === vendor && d.index === index)?.health;
}

function observeDeviceHealth(
  command: NodeCommand & { type: 'ObserveDeviceHealth' },
  state: NodeState,
): NodeEvent[] {
  const changed = command.devices.filter((d) => {
    const known = knownDeviceHealth(state, d.vendor, d.index);
    if (known === undefined) return false;
    const crossed = known < DEVICE_HEALTH_THRESHOLD !== d.health < DEVICE_HEALTH_THRESHOLD;
    return crossed || Math.abs(known - d.health) >= DEVICE_HEALTH_STEP;
  });
  if (changed.length === 0) return [];
  const devices = changed.map(({ vendor, index, health }) => ({ vendor, index, health }));
  return [{ type: 'NodeDeviceHealthChanged', data: { nodeId: command.nodeId, devices } }];
}

/** What is held on each device now, keyed `vendor/index`. */
export function deviceHoldings(state: NodeState): Map<string, { whole: boolean; slicedBytes: number }> {
  const held = new Map<string, { whole: boolean; slicedBytes: number }>();
  for (const grants of Object.values(state.deviceGrants)) {
    for (const g of grants) {
      const key = `${g.vendor}/${g.index}`;
      const h = held.get(key) ?? { whole: false, slicedBytes: 0 };
      if (g.sliceMemoryBytes === undefined) h.whole = true;
      else h.slicedBytes += g.sliceMemoryBytes;
      held.set(key, h);
    }
  }
  return held;
}

/** Every grant must name a registered device that is free enough: no device handed out twice, no slice overcommit. */
function deviceGrantRefusal(
  state: NodeState,
  grants: readonly DeviceGrant[],
  details: Record<string, unknown>,
): DomainError | undefined {
  const held = deviceHoldings(state);
  const devices = state.registration?.devices ?? [];
  for (const g of grants) {
    const key = `${g.vendor}/${g.index}`;
    const device = devices.find((d) => d.vendor === g.vendor && d.index === g.index);
    if (!device)
      return new DomainError('NODE.DEVICE_UNKNOWN', `Node has no device ${key}`, { ...details, device: key });
    const h = held.get(key) ?? { whole: false, slicedBytes: 0 };
    const busy =
      h.whole ||
      (g.sliceMemoryBytes === undefined
        ? h.slicedBytes > 0
        : h.slicedBytes + g.sliceMemoryBytes > (device.memoryBytes ?? 0));
    if (busy)
      return new DomainError('NODE.DEVICE_BUSY', `Device ${key} is already held`, {
        ...details,
        device: key,
      });
    held.set(key, {
      whole: g.sliceMemoryBytes === undefined,
      slicedBytes: h.slicedBytes + (g.sliceMemoryBytes ?? 0),
    });
  }
  return undefined;
}

/** Folds one node event into the state. */
export function evolveNode(state: NodeState, event: NodeEvent): NodeState {
  switch (event.type) {
    case 'NodeRegistered':
    case 'NodeReregistered':
      return {
        ...state,
        status: 'online',
        registration: event.data,
        labels: event.data.labels,
        stopRequested: false,
        draining: event.type === 'NodeRegistered' ? false : state.draining,
        deviceHealth: {},
      };
    case 'NodeWentOffline':
      return { ...state, status: 'offline' };
    case 'NodeCameOnline':
      return { ...state, status: 'online', lastSeenAt: event.data.seenAt };
    case 'NodeDrainRequested':
      return { ...state, draining: true };
    case 'NodeStopRequested':
      return { ...state, stopRequested: true };
    case 'NodeLabelsChanged':
      return { ...state, labels: event.data.labels };
    case 'NodeDeviceHealthChanged': {
      const deviceHealth = { ...state.deviceHealth };
      for (const d of event.data.devices) deviceHealth[`${d.vendor}/${d.index}`] = d.health;
      return { ...state, deviceHealth };
    }
    case 'NodeDeregistered':
      return { ...initialNodeState, status: 'deregistered' };
    case 'CapacityReserved':
      return reserved(state, event.data);
    case 'CapacityReleased':
      return released(state, event.data.allocationId);
    default:
      return assertNever(event);
  }
}

function reserved(state: NodeState, data: EventDataOf<'CapacityReserved'>): NodeState {
  const { allocationId, resources, devices } = data;
  const total = retotal(RESOURCE_KINDS, state.reserved, state.reservations.get(allocationId), resources);
  const next = { ...state, reservations: state.reservations.set(allocationId, resources), reserved: total };
  if (!devices?.length) return next;
  return { ...next, deviceGrants: { ...state.deviceGrants, [allocationId]: devices } };
}

function released(state: NodeState, allocationId: string): NodeState {
  const held = state.reservations.get(allocationId);
  if (!held) return state;
  const next = {
    ...state,
    reservations: state.reservations.delete(allocationId),
    reserved: retotal(RESOURCE_KINDS, state.reserved, held, undefined),
  };
  if (!(allocationId in state.deviceGrants)) return next;
  const { [allocationId]: _devices, ...grants } = state.deviceGrants;
  return { ...next, deviceGrants: grants };
}

/** The event types of a node stream. */
const NODE_EVENT_TYPES: EventTypes<NodeEvent> = {
  NodeRegistered: true,
  NodeReregistered: true,
  NodeWentOffline: true,
  NodeCameOnline: true,
  NodeDrainRequested: true,
  NodeStopRequested: true,
  NodeDeregistered: true,
  NodeLabelsChanged: true,
  NodeDeviceHealthChanged: true,
  CapacityReserved: true,
  CapacityReleased: true,
};

/** The node decider: initial state, validate, decide, evolve. */
export const nodeDecider = defineDecider({
  initialState: initialNodeState,
  eventTypes: NODE_EVENT_TYPES,
  validate: validateNode,
  decideAccepted: decideAcceptedNode,
  evolve: evolveNode,
});

/** Decides which events a command causes on one node; throws DomainError when it is refused. */
export const decideNode = nodeDecider.decide;
