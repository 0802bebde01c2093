import { BoundedCache } from './bounded-cache.js';

describe('BoundedCache', () => {
  it('keeps at most maxEntries, dropping the least recently used', () => {
    const cache = new BoundedCache<number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now the most recent
    cache.set('c', 3); // drops b
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('forgets one entry on delete and every entry on clear', () => {
    const cache = new BoundedCache<number>(3);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBe(2);
    cache.clear();
    expect(cache.size).toBe(0);
    expect(cache.capacity).toBe(3);
  });

  it('refuses a non-positive size', () => {
    expect(() => new BoundedCache(0)).toThrow(TypeError);
  });
});
