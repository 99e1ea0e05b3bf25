import { canonicalJson, chainHash, contentHash, foldChain, genesisHash } from './hash-chain';

describe('hash chain primitives', () => {
  it('writes canonical JSON: keys sorted at every depth, undefined members dropped, arrays in order', () => {
    const value = { b: 2, a: [3, { y: 'ü', x: null, z: undefined }, undefined], c: { toJSON: () => 'T' } };
    expect(canonicalJson(value)).toBe('{"a":[3,{"x":null,"y":"ü"},null],"b":2,"c":"T"}');
    expect(canonicalJson({ a: 1, hash: 'x' }, new Set(['hash']))).toBe('{"a":1}');
    expect(canonicalJson(1e21)).toBe('1e+21');
    expect(canonicalJson(-0)).toBe('0');
  });

  it('hashes content independently of key order and of the store-written hash keys', () => {
    const event = {
      eventId: 'e',
      type: 'T',
      data: { b: 2, a: [1, { y: 'ü', x: null }] },
      metadata: { k: 1 },
    };
    const reordered = {
      metadata: { prevHash: 'p', k: 1, hash: 'h' },
      data: { a: [1, { x: null, y: 'ü' }], b: 2 },
      type: 'T',
      eventId: 'e',
    };
    // sha256 of {"data":{"a":[1,{"x":null,"y":"ü"}],"b":2},"eventId":"e","metadata":{"k":1},"type":"T"}
    expect(contentHash(event)).toBe('4b2c2a33f2b9ea579f99bb0176875235855aeb593f90aa0c55bdf971fb38e3f3');
    expect(contentHash(reordered)).toBe(contentHash(event));
    expect(contentHash({ ...event, data: { ...event.data, b: 3 } })).not.toBe(contentHash(event));
  });

  it('links over the 32-byte digests and starts a stream at sha256 of its id', () => {
    const zero = '0'.repeat(64);
    expect(chainHash(zero, zero)).toBe('f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb4b');
    expect(genesisHash('node-1')).toBe('35971be6e9bb024a895582fe0e42e04848a86da550aaef0fccbfba86f99f617d');
    const links = foldChain(zero, [zero, 'f'.repeat(64)]);
    expect(links[0]).toEqual({ prevHash: zero, hash: chainHash(zero, zero) });
    expect(links[1]).toEqual({ prevHash: links[0].hash, hash: chainHash(links[0].hash, 'f'.repeat(64)) });
  });
});
