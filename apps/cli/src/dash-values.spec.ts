import fc from 'fast-check';
import { parseCommandLine } from './main.js';

const unit = fc.constantFrom(...'ABCXYZabcxyz0189-_'.split(''));
const base64url = fc.string({ unit, minLength: 1, maxLength: 60 });
/** A mission_s256: 43 base64url characters (one in 64 starts with "-", one in 4,096 with "--"). */
const missionReference = fc.string({ unit, minLength: 43, maxLength: 43 });

describe('mission CLI: values that start with "-" (base64url mission references and jtis)', () => {
  it('a mission_s256 starting with "-" is the positional it is, in its place', () => {
    const parsed = parseCommandLine(['ps', 'status', '-AbCd_eF', '--json']);
    expect(parsed.positionals).toEqual(['ps', 'status', '-AbCd_eF']);
    expect(parsed.values.json).toBe(true);
  });

  it('the value after a string flag is its value, whatever it starts with', () => {
    const parsed = parseCommandLine(['ps', 'revoke-token', '--jti', '-Xy.z', '--iss', 'https://ps.example', '--json']);
    expect(parsed.values).toMatchObject({ jti: '-Xy.z', iss: 'https://ps.example', json: true });
    expect(parsed.positionals).toEqual(['ps', 'revoke-token']);
  });

  it('any mission reference as a positional, and any base64url value of a flag, reads back unchanged', () => {
    fc.assert(fc.property(missionReference, base64url, (reference, jti) => {
      const parsed = parseCommandLine(['ps', 'terminate', reference, '--reason', 'revoked', '--jti', jti]);
      expect(parsed.positionals).toEqual(['ps', 'terminate', reference]);
      expect(parsed.values).toMatchObject({ reason: 'revoked', jti });
    }), { numRuns: 500 });
  });

  it('unknown --flags are still refused, and -h, --flag=value and -- still work', () => {
    expect(() => parseCommandLine(['ps', 'status', 'x', '--nope'])).toThrow(/--nope/);
    expect(parseCommandLine(['-h']).values.help).toBe(true);
    expect(parseCommandLine(['ps', 'status', '--key=-k.json', '--', '-a', '--json']).positionals).toEqual(['ps', 'status', '-a', '--json']);
    expect(parseCommandLine(['ps', 'status', '--key=-k.json']).values).toMatchObject({ key: '-k.json' });
  });
});
