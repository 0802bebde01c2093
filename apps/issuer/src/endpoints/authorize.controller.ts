import { Controller, Get, Inject, Post, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { FastifyReply as Response } from 'fastify';
import type { RawBodyRequest as Request } from '@mission/platform';
import { requestUriFor, type AuthorizationRequest } from '@mission/issuer-domain';
import { InvalidRequestError } from '@mission/issuer-oauth';
import { requestTraceOf, SERVICE_CONFIG } from '@mission/platform';
import { ClientRegistry } from '../clients/client-registry.js';
import type { ClientRegistration, IssuerConfig } from '../config/issuer-config.js';
import { CONSENT_PAGE_HEADERS, renderConsentPage } from '../consent/consent-page.js';
import { verifyPassword } from '../consent/verify-password.js';
import { formOf, OAuthForm } from '../http/oauth-form.js';
import { IssuerOAuth } from '../oauth/issuer-oauth.service.js';
import { DecideAuthorizationRequest } from '../use-cases/decide-authorization-request/decide-authorization-request.handler.js';
import { ReadPendingAuthorizationRequest } from '../use-cases/read-pending-authorization-request/read-pending-authorization-request.handler.js';
import type { Redirect } from '../use-cases/shared/command-context.js';
import {
  assertCsrf, clearCsrfCookie, cookieValue, csrfCookie, decisionOf, newCsrfToken, onlyPushedParameters, setCsrfCookie, type CsrfCookie,
} from './authorize-parameters.js';
import { refuseParentTokenOnFrontChannel } from './child-creation-parameters.js';
import { AuthorizeOperation, ConsentDecisionOperation } from './openapi/operations.js';

const WRONG_LOGIN = 'The person or password is not correct.';

/** RFC 9126 §4 `/authorize` with a pushed request: approval by policy or by a person on the consent page. */
@Controller('authorize')
export class AuthorizeController {
  private readonly persons: ReadonlyMap<string, string>;
  private readonly cookie: CsrfCookie;

  constructor(
    oauth: IssuerOAuth,
    private readonly clients: ClientRegistry,
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    @Inject(SERVICE_CONFIG) config: IssuerConfig,
  ) {
    this.persons = new Map(config.persons.map((person) => [person.sub, person.password_hash]));
    this.cookie = csrfCookie(oauth.issuer);
  }

  @Get()
  @AuthorizeOperation()
  async authorize(@Req() request: Request, @Res() response: Response): Promise<void> {
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
    const form = OAuthForm.fromQuery(query);
    refuseParentTokenOnFrontChannel(form);
    onlyPushedParameters(form);
    const { client, pending } = await this.pendingRequest(form);
    if (client.approval_policy === 'auto') {
      // DESIGN 2.2: the client's registered approval policy approves without user interaction.
      return redirect(response, await this.commands.execute(new DecideAuthorizationRequest(pending, { id: client.client_id, role: 'approval_policy' }, { approve: true }, requestTraceOf(request))));
    }
    const csrfToken = newCsrfToken();
    response.header('Set-Cookie', setCsrfCookie(this.cookie, csrfToken));
    this.consentPage(response, 200, pending, csrfToken);
  }

  @Post('decision')
  @ConsentDecisionOperation()
  async decision(@Req() request: Request, @Res() response: Response): Promise<void> {
    const form = formOf(request);
    refuseParentTokenOnFrontChannel(form);
    const csrfToken = assertCsrf(cookieValue(request.headers.cookie, this.cookie.name), form.optional('csrf_token', 64));
    const { client, pending } = await this.pendingRequest(form);
    if (client.approval_policy !== 'consent') throw new InvalidRequestError('this client is approved by policy, not on the consent page');
    const decision = decisionOf(form);
    const person = form.required('person', 255);
    // Constant work: verifyPassword spends the same scrypt cost for an unknown person.
    const authenticated = await verifyPassword(form.required('password', 1024), this.persons.get(person));
    if (!authenticated) return this.consentPage(response, 401, pending, csrfToken, WRONG_LOGIN);
    const actor = { id: person, role: 'person' };
    const outcome = await this.commands.execute(
      new DecideAuthorizationRequest(pending, actor, decision === 'approve' ? { approve: true } : { approve: false, reason: 'declined on the consent page' }, requestTraceOf(request)),
    );
    response.header('Set-Cookie', clearCsrfCookie(this.cookie));
    redirect(response, outcome);
  }

  // RFC 9126 §4: the request_uri must be pending, unexpired and the named client's; nothing is redirected before that holds.
  private async pendingRequest(form: OAuthForm): Promise<{ client: ClientRegistration; pending: AuthorizationRequest }> {
    const clientId = form.required('client_id', 255);
    const requestUri = form.required('request_uri', 256);
    const client = this.clients.findClient(clientId);
    if (client === undefined) throw new InvalidRequestError('request_uri: the request_uri is unknown');
    return { client, pending: await this.queries.execute(new ReadPendingAuthorizationRequest(requestUri, clientId)) };
  }

  private consentPage(response: Response, status: number, pending: AuthorizationRequest, csrfToken: string, error?: string): void {
    const page = renderConsentPage({
      clientId: pending.clientId,
      requestUri: requestUriFor(pending.requestId),
      goal: pending.intent.goal,
      expiresAt: pending.intent.expires_at,
      authoritySet: pending.authoritySet,
      csrfToken,
      ...(error !== undefined ? { error } : {}),
    });
    response.status(status).headers({ ...CONSENT_PAGE_HEADERS, 'Content-Type': 'text/html; charset=utf-8' }).send(page);
  }
}

// RFC 6749 §4.1.2: the answer goes to the (registered, exactly matched) redirect URI; never cached.
function redirect(response: Response, outcome: Redirect): void {
  response.status(302).headers({ Location: outcome.location, 'Cache-Control': 'no-store' }).send();
}
