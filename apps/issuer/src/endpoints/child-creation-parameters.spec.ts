import { ProtocolError } from '@mission/issuer-oauth';
import { OAuthForm } from '../http/oauth-form.js';
import { childRequestUri, parentGrantIdOf } from '../use-cases/create-child-mission/parent-grant.js';
import { childGrantTokenOf } from './token-parameters.js';
import {
  cascadeModeOf, childActorOf, claimedParentOf, isChildCreationRequest, parentTokenOf, refuseParentTokenOnFrontChannel,
} from './child-creation-parameters.js';

const form = (values: Record<string, string>) => OAuthForm.fromQuery(new URLSearchParams(values).toString());
const MISSION_ID = 'msn_AAAAAAAAAAAAAAAAAAAAAA';
const GRANT_TOKEN = `grt_${'A'.repeat(22)}.${'B'.repeat(42)}A`;

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (error instanceof ProtocolError) return error.code;
    throw error;
  }
}

describe('Child Mission creation request steps (spec child-mission-delegation 4.1, DESIGN 2.4)', () => {
  it('spec 4.1: any of parent, parent_token, child_actor makes a pushed request a child creation', () => {
    expect(isChildCreationRequest(form({ response_type: 'code' }))).toBe(false);
    for (const name of ['parent', 'parent_token', 'child_actor']) expect(isChildCreationRequest(form({ [name]: 'x' }))).toBe(true);
  });

  it('spec 4.1 rule 2: parent_token on the front channel is invalid_request', () => {
    expect(codeOf(() => refuseParentTokenOnFrontChannel(form({ client_id: 'a' })))).toBeUndefined();
    expect(codeOf(() => refuseParentTokenOnFrontChannel(form({ parent_token: 'x' })))).toBe('invalid_request');
  });

  it('spec 4.1 parameter table: parent is a required mission_id; parent_token is required and bounded', () => {
    expect(claimedParentOf(form({ parent: MISSION_ID }))).toBe(MISSION_ID);
    expect(codeOf(() => claimedParentOf(form({})))).toBe('invalid_request');
    expect(codeOf(() => claimedParentOf(form({ parent: 'msn_short' })))).toBe('invalid_request');
    expect(parentTokenOf(form({ parent_token: GRANT_TOKEN }))).toBe(GRANT_TOKEN);
    expect(codeOf(() => parentTokenOf(form({})))).toBe('invalid_request');
    expect(codeOf(() => parentTokenOf(form({ parent_token: 'x'.repeat(257) })))).toBe('invalid_request');
  });

  it('spec 4.1, 2.2: child_actor is strict JSON of the 2.2 members', () => {
    expect(childActorOf(form({ child_actor: '{"sub":"agent-b","sub_profile":"ai_agent tool_runner"}' }))).toEqual({ sub: 'agent-b', sub_profile: 'ai_agent tool_runner' });
    for (const text of ['{"sub":', '{"sub":"a","sub":"b"}', '{}', '{"sub":7}', '{"sub":"a","extra":1}', '"agent-b"', '{"sub":"a","sub_profile":"AI Agent"}']) {
      expect(codeOf(() => childActorOf(form({ child_actor: text })))).toBe('invalid_request');
    }
  });

  it('spec 3.3, DESIGN 2.4: cascade_mode is immediate unless an enabled experimental mode is named', () => {
    const none = { creation_grant_ttl_seconds: 300, policies: [], experimental_cascade_modes: [] };
    const enabled = { ...none, experimental_cascade_modes: ['bounded_staleness' as const] };
    expect(cascadeModeOf(form({}), none)).toBe('immediate');
    expect(cascadeModeOf(form({ cascade_mode: 'immediate' }), none)).toBe('immediate');
    expect(codeOf(() => cascadeModeOf(form({ cascade_mode: 'bounded_staleness' }), none))).toBe('invalid_request');
    expect(cascadeModeOf(form({ cascade_mode: 'bounded_staleness' }), enabled)).toBe('bounded_staleness');
    expect(codeOf(() => cascadeModeOf(form({ cascade_mode: 'status_required' }), enabled))).toBe('invalid_request');
    expect(codeOf(() => cascadeModeOf(form({ cascade_mode: 'later' }), enabled))).toBe('invalid_request');
  });

  it('spec 4.1 step 2: a parent_token that is not one of our grant tokens resolves nothing (invalid_grant)', () => {
    expect(parentGrantIdOf(GRANT_TOKEN)).toBe(`grt_${'A'.repeat(22)}`);
    expect(codeOf(() => parentGrantIdOf('opaque'))).toBe('invalid_grant');
  });

  it('DESIGN 2.4: the request_uri of a child is the grant token under the RFC 9126 URN; anything else is invalid_grant', () => {
    const requestUri = childRequestUri(GRANT_TOKEN);
    expect(requestUri).toBe(`urn:ietf:params:oauth:request_uri:${GRANT_TOKEN}`);
    expect(childGrantTokenOf(form({ request_uri: requestUri }))).toBe(GRANT_TOKEN);
    expect(codeOf(() => childGrantTokenOf(form({ request_uri: 'urn:ietf:params:oauth:request_uri:req_AAAAAAAAAAAAAAAAAAAAAA' })))).toBe('invalid_grant');
    expect(codeOf(() => childGrantTokenOf(form({ request_uri: GRANT_TOKEN })))).toBe('invalid_grant');
    expect(codeOf(() => childGrantTokenOf(form({})))).toBe('invalid_request');
  });
});
