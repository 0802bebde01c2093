import { InvalidRequestError } from '@mission/protocol-errors';
import { OAuthForm } from './oauth-form.js';

const form = (body: string, type = 'application/x-www-form-urlencoded') => OAuthForm.parse(type, Buffer.from(body));

describe('OAuth form parameters', () => {
  it('reads parameters, decoding percent- and plus-encoding', () => {
    const parsed = form('grant_type=authorization_code&redirect_uri=http%3A%2F%2F127.0.0.1%3A9000%2Fcb&state=a+b');
    expect(parsed.required('grant_type')).toBe('authorization_code');
    expect(parsed.required('redirect_uri')).toBe('http://127.0.0.1:9000/cb');
    expect(parsed.optional('state')).toBe('a b');
  });

  it('accepts a charset parameter on the content type (RFC 6749 §3.2)', () => {
    expect(form('a=1', 'application/x-www-form-urlencoded; charset=UTF-8').required('a')).toBe('1');
  });

  it('refuses another content type (RFC 6749 §3.2)', () => {
    expect(() => form('{"a":1}', 'application/json')).toThrow(InvalidRequestError);
    expect(() => OAuthForm.parse(undefined, Buffer.from('a=1'))).toThrow(/must be application\/x-www-form-urlencoded/);
  });

  it('refuses a repeated parameter (RFC 6749 §3.1)', () => {
    expect(() => form('scope=a&scope=b')).toThrow('parameter scope is repeated');
  });

  it('treats a parameter without a value as omitted (RFC 6749 §3.1)', () => {
    const parsed = form('state=&code=x');
    expect(parsed.has('state')).toBe(false);
    expect(() => parsed.required('state')).toThrow('parameter state is missing');
  });

  it('caps parameter length', () => {
    expect(() => form(`code=${'x'.repeat(9000)}`).required('code')).toThrow(/longer than 8192/);
  });
});

describe('OAuth form as a record (what client authentication reads)', () => {
  it('RFC 6749 §3.1: is built once, frozen, and keeps every parameter as an own member (also "__proto__")', () => {
    const parsed = form('client_id=c1&__proto__=x&state=');
    const record = parsed.toRecord();
    expect(parsed.toRecord()).toBe(record);
    expect(Object.isFrozen(record)).toBe(true);
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    expect(Object.hasOwn(record, '__proto__')).toBe(true);
    expect(record).toEqual({ client_id: 'c1', ['__proto__']: 'x' });
    expect(Object.hasOwn(record, 'state')).toBe(false);
  });
});
