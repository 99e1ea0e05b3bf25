import { execTool, fraction, mib, numberOrUndefined } from './tool-runner';

describe('execTool', () => {
  it.each([
    ['a tool that is not installed', 'hcn-no-such-tool-xyz', [], null],
    ['a tool that fails', process.execPath, ['-e', 'process.exit(3)'], null],
    ['a tool that succeeds', process.execPath, ['-e', 'process.stdout.write("ok")'], 'ok'],
  ])('%s → %j', async (_name, command, args, output) => {
    await expect(execTool(command, args)).resolves.toBe(output);
  });
});

describe('number helpers', () => {
  it.each([
    ['42', 42],
    [' 3.5 ', 3.5],
    ['[N/A]', undefined],
    ['NA', undefined],
    ['-1', undefined],
    [undefined, undefined],
  ])('numberOrUndefined(%j) → %j', (text, value) => {
    expect(numberOrUndefined(text)).toBe(value);
  });

  it.each([
    [undefined, 0],
    [50, 0.5],
    [250, 1],
  ])('fraction(%j) → %d', (percent, value) => {
    expect(fraction(percent)).toBe(value);
  });

  it('mib converts MiB to bytes', () => expect(mib(2)).toBe(2 * 1024 * 1024));
});
