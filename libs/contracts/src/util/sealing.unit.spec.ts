import { isSealed, openSecret, sealSecret } from './sealing';

describe('sealed secrets', () => {
  it('open with the key they were sealed with, and only with it', () => {
    const sealed = sealSecret('key-a', 'p@ss wörd');
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).not.toContain('p@ss');
    expect(openSecret('key-a', sealed)).toBe('p@ss wörd');
    expect(() => openSecret('key-b', sealed)).toThrow();
  });

  it('are deterministic per key and text (a repeated submission is the same spec)', () => {
    expect(sealSecret('k', 'x')).toBe(sealSecret('k', 'x'));
    expect(sealSecret('k', 'x')).not.toBe(sealSecret('k', 'y'));
    expect(sealSecret('k', 'x')).not.toBe(sealSecret('other', 'x'));
  });

  it('refuse a changed text', () => {
    const sealed = sealSecret('k', 'secret');
    const tampered = `${sealed.slice(0, -2)}${sealed.endsWith('A') ? 'B' : 'A'}${sealed.slice(-1)}`;
    expect(() => openSecret('k', tampered)).toThrow();
    expect(() => openSecret('k', 'plain')).toThrow(/not a sealed value/);
  });
});
