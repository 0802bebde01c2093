import { IsIn, Matches } from 'class-validator';
import { InvalidGrantError, ProtocolError } from '@mission/issuer-oauth';
import { answeredWith, FormParameter, formParameters } from './form-parameters.js';
import { OAuthForm } from './oauth-form.js';

class Probe {
  @IsIn(['a', 'b'], { message: 'mode must be a or b' })
  @FormParameter(4, { required: true })
  mode: string | undefined = undefined;

  @Matches(/^x+$/, { message: 'token is not ours', ...answeredWith((description) => new InvalidGrantError(description)) })
  @FormParameter(8)
  token: string | undefined = undefined;
}

const form = (values: Record<string, string>) => OAuthForm.fromQuery(new URLSearchParams(values).toString());

function refusal(values: Record<string, string>): { code: string; description: string | undefined } | undefined {
  try {
    formParameters(Probe, form(values));
    return undefined;
  } catch (error) {
    if (error instanceof ProtocolError) return { code: error.code, description: error.description };
    throw error;
  }
}

describe('form parameters as class-validator DTOs', () => {
  it('RFC 6749 §3.1: reads the known parameters and ignores unknown ones', () => {
    expect(formParameters(Probe, form({ mode: 'a', other: 'z' }))).toEqual({ mode: 'a', token: undefined });
  });

  it('RFC 6749 §5.2: missing, too long, then the shape, one problem at a time as invalid_request', () => {
    expect(refusal({})).toEqual({ code: 'invalid_request', description: 'parameter mode is missing' });
    expect(refusal({ mode: 'aaaaa' })).toEqual({ code: 'invalid_request', description: 'parameter mode is longer than 4 characters' });
    expect(refusal({ mode: 'c' })).toEqual({ code: 'invalid_request', description: 'mode must be a or b' });
  });

  it('a shape check may answer with another protocol error', () => {
    expect(refusal({ mode: 'a', token: 'y' })).toEqual({ code: 'invalid_grant', description: 'token is not ours' });
    expect(refusal({ mode: 'a', token: 'xxxxxxxxx' })).toEqual({ code: 'invalid_request', description: 'parameter token is longer than 8 characters' });
  });
});
