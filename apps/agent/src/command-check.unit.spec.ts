import { AgentCommand, commandMac } from '@hcn/contracts';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppliedCommands } from './applied-commands';
import { commandRefusal } from './command-check';

const nodeId = randomUUID();
const key = 'node-key';
const now = new Date('2026-11-26T12:00:00Z');
const at = (minutesAgo: number) => new Date(now.getTime() - minutesAgo * 60_000).toISOString();

function signed(over: Partial<AgentCommand> = {}, withKey = key): AgentCommand {
  const command = {
    commandId: randomUUID(),
    nodeId,
    kind: 'drain',
    reason: 'r',
    issuedAt: at(1),
    ...over,
  } as AgentCommand;
  return { ...command, mac: commandMac(withKey, command) };
}

describe('which commands an agent refuses', () => {
  const applied = () => new AppliedCommands(mkdtempSync(join(tmpdir(), 'hcn-applied-')));

  it.each([
    ['a command its hub signed for it', signed(), undefined],
    ['one for another node', signed({ nodeId: randomUUID() }), /^for node /],
    ['an unsigned one', { ...signed(), mac: undefined }, 'unsigned'],
    ['one signed with another key', signed({}, 'other-key'), 'bad signature'],
    ['one changed after signing', { ...signed(), reason: 'changed' }, 'bad signature'],
    ['one signed two hours ago', signed({ issuedAt: at(120) }), /a replay\)$/],
  ])('%s', (_what, command, refusal) => {
    const verdict = commandRefusal(command as AgentCommand, nodeId, key, applied(), now);
    if (refusal === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatch(refusal);
  });

  it('refuses one signed before the newest command it has forgotten (it may have applied it)', () => {
    const log = applied();
    for (let i = 0; i < 1001; i++) log.firstTime(randomUUID(), at(50 - i / 100));
    expect(commandRefusal(signed({ issuedAt: at(50) }), nodeId, key, log, now)).toMatch(/remembers/);
    expect(commandRefusal(signed({ issuedAt: at(1) }), nodeId, key, log, now)).toBeUndefined();
  });
});
