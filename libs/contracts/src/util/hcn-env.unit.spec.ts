import { allocationEnv } from './hcn-env';

const id = { workloadId: 'w', allocationId: 'a', nodeId: 'n', instanceId: 'w/3' };

describe('allocationEnv', () => {
  it.each<[string, string, string]>([
    ['a reference to the instance index', '$(HCN_INSTANCE_INDEX)', '3'],
    ['references inside text', 'node $(HCN_NODE_ID), instance $(HCN_INSTANCE_INDEX)', 'node n, instance 3'],
    ['an escaped reference stays literal', '$$(HCN_NODE_ID)', '$(HCN_NODE_ID)'],
    ['an unknown name stays as written', '$(HOME)', '$(HOME)'],
    ['a shell-style variable is not a reference', '$HCN_NODE_ID', '$HCN_NODE_ID'],
  ])('%s', (_, value, expected) => {
    expect(allocationEnv({ X: value }, id).X).toBe(expected);
  });

  it('adds the identifiers, which the spec cannot override', () => {
    expect(allocationEnv({ HCN_NODE_ID: 'forged' }, id)).toEqual({
      HCN_WORKLOAD_ID: 'w',
      HCN_ALLOCATION_ID: 'a',
      HCN_NODE_ID: 'n',
      HCN_INSTANCE_ID: 'w/3',
      HCN_INSTANCE_INDEX: '3',
    });
  });
});
