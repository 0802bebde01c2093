import { InvalidCommandError } from '../shared/errors.js';
import { isMissionId, missionIdFromBytes, missionStreamName } from './mission-id.js';

describe('mission_id (DESIGN 2.3) and stream name (DESIGN 1)', () => {
  it('DESIGN 2.3: is msn_ + 22 base64url characters of the 16 random bytes', () => {
    const id = missionIdFromBytes(Uint8Array.from({ length: 16 }, (_, i) => i * 17));
    expect(id).toBe('msn_ABEiM0RVZneImaq7zN3u_w');
    expect(id).toMatch(/^msn_[A-Za-z0-9_-]{22}$/);
    expect(isMissionId(id)).toBe(true);
    expect(missionIdFromBytes(new Uint8Array(16).fill(255))).toBe('msn______________________w');
  });

  it('refuses anything but exactly 16 bytes', () => {
    expect(() => missionIdFromBytes(new Uint8Array(15))).toThrow(InvalidCommandError);
    expect(() => missionIdFromBytes(new Uint8Array(32))).toThrow(InvalidCommandError);
  });

  it.each(['msn_ABEiM0RVZneImaq7zN3u_', 'msn_ABEiM0RVZneImaq7zN3u_w=', 'MSN_ABEiM0RVZneImaq7zN3u_w', 'msn_ABEiM0RVZneImaq7zN3u+w', 'msn_ABEiM0RVZneImaq7zN3u_x', 42, undefined])(
    'isMissionId refuses %p (wrong length, padding, prefix, alphabet, non-canonical last character, type)',
    (value) => {
      expect(isMissionId(value)).toBe(false);
    },
  );

  it('DESIGN 1: the stream is mission-<mission_id>, and only for a valid id', () => {
    expect(missionStreamName('msn_ABEiM0RVZneImaq7zN3u_w')).toBe('mission-msn_ABEiM0RVZneImaq7zN3u_w');
    expect(() => missionStreamName('msn_x')).toThrow(InvalidCommandError);
  });
});
