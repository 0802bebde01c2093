import { createHash } from 'node:crypto';
import { InvalidMissionReferenceError } from '../errors/management.errors.js';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { AGENT, APPROVER } from '../testing/fixtures.js';
import { encodeMissionBlob, missionBlobBytes, missionBlobText, parseMissionBlob, type MissionBlobFields } from './mission-blob.js';
import { assertMissionReference, isMissionS256, matchesMissionS256, missionS256 } from './mission-s256.js';

const FIELDS: MissionBlobFields = {
  approver: APPROVER,
  agent: AGENT,
  approved_at: '2026-11-22T09:00:00.000Z',
  description: 'Reconcile November invoices',
  expires_at: '2026-11-22T17:00:00.000Z',
  approved_tools: ['invoices.read', 'invoices.list'],
  approved_resources: ['https://erp.example.com/invoices'],
};

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

describe('mission blob (DESIGN 3.1)', () => {
  it('DESIGN 3.1: the blob is compact JSON with members in JCS order (RFC 8785) and exactly the given values', () => {
    expect(text(missionBlobBytes(FIELDS))).toBe(
      '{"agent":"aauth:agent-a@agents.example","approved_at":"2026-11-22T09:00:00.000Z","approved_resources":["https://erp.example.com/invoices"],' +
        '"approved_tools":["invoices.read","invoices.list"],"approver":"https://ps.example","description":"Reconcile November invoices","expires_at":"2026-11-22T17:00:00.000Z"}',
    );
  });

  it('DESIGN 3.1: the bytes are stable whatever order the fields were built in', () => {
    const reordered = JSON.parse(JSON.stringify({ ...FIELDS, approver: undefined, agent: undefined })) as Record<string, unknown>;
    const rebuilt = { approved_resources: FIELDS.approved_resources, ...reordered, agent: AGENT, approver: APPROVER } as MissionBlobFields;
    expect(missionBlobBytes(rebuilt)).toEqual(missionBlobBytes(FIELDS));
    expect(missionBlobText(FIELDS)).toBe(missionBlobText({ ...FIELDS }));
  });

  it('DESIGN 3.1: optional members are omitted, not null', () => {
    const minimal = { approver: APPROVER, agent: AGENT, approved_at: FIELDS.approved_at, description: 'x' };
    expect(text(missionBlobBytes(minimal))).toBe('{"agent":"aauth:agent-a@agents.example","approved_at":"2026-11-22T09:00:00.000Z","approver":"https://ps.example","description":"x"}');
    expect(text(missionBlobBytes({ ...minimal, expires_at: undefined }))).not.toContain('expires_at');
  });

  it('DESIGN 3.1: non-ASCII text is UTF-8 in the bytes (JCS escapes only what JSON requires)', () => {
    const bytes = missionBlobBytes({ ...FIELDS, description: 'Prüfe Rechnungen “November” 😀' });
    expect(text(bytes)).toContain('"description":"Prüfe Rechnungen “November” 😀"');
    expect(Buffer.from(bytes).includes(Buffer.from('ü', 'utf8'))).toBe(true);
  });

  it('DESIGN 3.1: s256 is base64url-nopad(SHA-256(bytes)), verified by re-hashing the bytes', () => {
    const bytes = missionBlobBytes(FIELDS);
    const s256 = missionS256(bytes);
    expect(s256).toBe(createHash('sha256').update(bytes).digest('base64url'));
    expect(s256).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(matchesMissionS256(bytes, s256)).toBe(true);
    expect(matchesMissionS256(missionBlobBytes({ ...FIELDS, description: 'Reconcile December invoices' }), s256)).toBe(false);
    expect(matchesMissionS256(bytes, 'not a digest')).toBe(false);
  });

  it('DESIGN 3.1: the poll response carries the exact bytes as base64url, which decode back to the same s256', () => {
    const bytes = missionBlobBytes(FIELDS);
    const decoded = new Uint8Array(Buffer.from(encodeMissionBlob(bytes), 'base64url'));
    expect(encodeMissionBlob(bytes)).not.toMatch(/[=+/]/);
    expect(missionS256(decoded)).toBe(missionS256(bytes));
  });

  it('DESIGN 3.1: stored bytes parse back to the fields; non-canonical bytes are refused', () => {
    const bytes = missionBlobBytes(FIELDS);
    expect(parseMissionBlob(bytes)).toEqual(FIELDS);
    const pretty = new TextEncoder().encode(JSON.stringify(FIELDS, null, 2));
    expect(() => parseMissionBlob(pretty)).toThrow(InvalidCommandError);
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...bytes]);
    expect(() => parseMissionBlob(withBom)).toThrow(InvalidCommandError);
    const duplicate = new TextEncoder().encode(text(bytes).replace('{"agent"', '{"agent":"x","agent"'));
    expect(() => parseMissionBlob(duplicate)).toThrow(InvalidCommandError);
    expect(() => parseMissionBlob(new Uint8Array([0xff]))).toThrow(InvalidCommandError);
  });

  it.each([
    ['an unknown member (closed member set)', { extra: 'x' }],
    ['an empty approver', { approver: '' }],
    ['an empty agent', { agent: '' }],
    ['approved_at not in toISOString form', { approved_at: '2026-11-22T09:00:00Z' }],
    ['expires_at not in toISOString form', { expires_at: '2026-11-22T17:00:00+00:00' }],
    ['expires_at not after approved_at', { expires_at: '2026-11-22T09:00:00.000Z' }],
    ['a blank description', { description: '  ' }],
    ['a description with a control character', { description: 'a\nb' }],
    ['duplicate approved_tools', { approved_tools: ['a', 'a'] }],
    ['an approved_resources entry that is not a string', { approved_resources: [1] }],
  ])('DESIGN 3.1: refuses a blob with %s', (_, change) => {
    expect(() => missionBlobBytes({ ...FIELDS, ...change } as MissionBlobFields)).toThrow(InvalidCommandError);
  });
});

describe('Mission Reference digest (spec 2.1)', () => {
  const s256 = missionS256(missionBlobBytes(FIELDS));

  it('spec 2.1: accepts exactly the digests missionS256 produces', () => {
    expect(isMissionS256(s256)).toBe(true);
    expect(() => assertMissionReference(s256)).not.toThrow();
  });

  it.each([
    ['42 characters', s256.slice(0, 42)],
    ['44 characters', `${s256}A`],
    ['padding', `${s256.slice(0, 42)}=`],
    ['standard base64 characters', `+${s256.slice(1)}`],
    ['a non-canonical last character (an alias of another spelling)', `${s256.slice(0, 42)}B`],
    ['a URL', 'https://ps.example/missions/1'],
    ['a number', 42],
    ['null', null],
  ])('spec 2.1 rule 2: refuses %s as invalid_mission_reference', (_, value) => {
    expect(isMissionS256(value)).toBe(false);
    expect(() => assertMissionReference(value)).toThrow(InvalidMissionReferenceError);
    try {
      assertMissionReference(value);
    } catch (error) {
      expect(error).toMatchObject({ code: 'invalid_mission_reference', status: 400 });
      expect((error as Error).message).not.toContain(String(value));
    }
  });
});
