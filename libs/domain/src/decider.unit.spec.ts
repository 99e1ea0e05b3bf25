import { defineDecider } from './decider';
import { DomainError } from './errors';

describe('defineDecider', () => {
  const decideAccepted = jest.fn((n: number) => [{ type: 'Added' as const, data: { n } }]);
  const decider = defineDecider({
    initialState: 0,
    eventTypes: { Added: true },
    validate: (n: number, total: number) => (total + n > 10 ? new DomainError('FULL', 'over 10') : undefined),
    decideAccepted,
    evolve: (total: number, event: { type: 'Added'; data: { n: number } }) => total + event.data.n,
  });
  beforeEach(() => decideAccepted.mockClear());

  it('decides an accepted command with decideAccepted', () => {
    expect(decider.validate(3, 5)).toBeUndefined();
    expect(decider.decide(3, 5)).toEqual([{ type: 'Added', data: { n: 3 } }]);
  });

  it('throws the refusal validate gives, without deciding', () => {
    expect(decider.validate(6, 5)).toMatchObject({ code: 'FULL' });
    expect(() => decider.decide(6, 5)).toThrow(expect.objectContaining({ code: 'FULL' }));
    expect(decideAccepted).not.toHaveBeenCalled();
  });
});
