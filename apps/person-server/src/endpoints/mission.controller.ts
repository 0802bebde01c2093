import { Controller, Get, Inject, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { FastifyReply as Response, FastifyRequest as Request } from 'fastify';
import { requestTraceOf, SERVICE_SETTINGS, type ServiceSettings } from '@mission/platform';
import { Caller, SignedRequestGuard } from '../auth/signed-request.guard.js';
import { ProblemFilter } from '../errors/problem.filter.js';
import { jsonShape } from '../http/json-shape.js';
import { requestFacts, type RequestFacts } from '../http/request-facts.js';
import { strictJsonBody } from '../http/strict-json-body.js';
import type { AuthenticatedCaller } from '../identity/authenticated-caller.js';
import { DecideProposal } from '../use-cases/decide-proposal/decide-proposal.handler.js';
import { PollProposal } from '../use-cases/poll-proposal/poll-proposal.handler.js';
import { ProposeMission } from '../use-cases/propose-mission/propose-mission.handler.js';
import { DelegationTreeBody } from '../use-cases/read-delegation-tree/delegation-tree.body.js';
import { ReadDelegationTree } from '../use-cases/read-delegation-tree/read-delegation-tree.handler.js';
import { ReadMissionStatus } from '../use-cases/read-mission-status/read-mission-status.handler.js';
import { ReferenceLookups } from '../use-cases/shared/reference-lookups.js';
import { TerminateMission } from '../use-cases/terminate-mission/terminate-mission.handler.js';
import { ManagementOperationBody } from './management-operation.body.js';
import { ApprovalsOperation, MissionOperation, PendingProposalOperation } from './openapi/operations.js';

export { MANAGEMENT_OPERATIONS } from './management-operation.body.js';
/** DESIGN 3.1: seconds an agent waits between polls of a pending proposal. */
export const PENDING_RETRY_AFTER_SECONDS = 5;

/**
 * The mission endpoint (DESIGN 3.1, spec 4): `POST /mission` (proposal, or a management operation when
 * the body has `operation`), `GET /mission/pending/{id}`, `POST /mission/approvals`. Every route is
 * signed (spec 5.1, DESIGN 3.2) and every answer carries `Cache-Control: no-store` (spec 5.8). Each request
 * becomes one command or query (use-cases/).
 */
@Controller('mission')
@UseGuards(SignedRequestGuard)
@UseFilters(ProblemFilter)
export class MissionController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly lookups: ReferenceLookups,
    @Inject(SERVICE_SETTINGS) private readonly settings: ServiceSettings,
  ) {}

  @Post()
  @MissionOperation()
  async mission(@Caller() caller: AuthenticatedCaller, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<unknown> {
    response.header('Cache-Control', 'no-store');
    const body = strictJsonBody(request);
    if (isObject(body) && Object.hasOwn(body, 'operation')) {
      const answer = await this.operation(caller, body, requestFacts(request));
      response.status(200);
      return answer;
    }
    const pendingId = await this.commands.execute(new ProposeMission(caller, body, requestTraceOf(request)));
    response.status(202);
    response.header('Location', `${this.settings.baseUrl}/mission/pending/${pendingId}`);
    response.header('Retry-After', String(PENDING_RETRY_AFTER_SECONDS));
    return { status: 'pending' };
  }

  @Get('pending/:id')
  @PendingProposalOperation()
  async pending(@Caller() caller: AuthenticatedCaller, @Param('id') id: string, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<unknown> {
    response.header('Cache-Control', 'no-store');
    const result = await this.queries.execute(new PollProposal(caller, id, requestTraceOf(request)));
    switch (result.status) {
      case 'pending':
        response.status(202).header('Retry-After', String(PENDING_RETRY_AFTER_SECONDS));
        return { status: 'pending' };
      case 'approved':
        response.status(200);
        return { s256: result.s256, mission: result.mission };
      case 'declined':
        response.status(403);
        return { error: 'denied' };
    }
  }

  @Post('approvals')
  @ApprovalsOperation()
  async approvals(@Caller() caller: AuthenticatedCaller, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<unknown> {
    response.header('Cache-Control', 'no-store');
    const answer = await this.commands.execute(new DecideProposal(caller, strictJsonBody(request), requestTraceOf(request)));
    response.status(200);
    return answer;
  }

  /** Spec 4: unknown operation → unsupported_operation; malformed reference → invalid_mission_reference before any lookup. */
  private async operation(caller: AuthenticatedCaller, body: Record<string, unknown>, facts: RequestFacts): Promise<unknown> {
    const { operation, mission_s256: reference } = jsonShape(ManagementOperationBody, body, 'the request must be a JSON object');
    const s256 = this.lookups.admit(caller, operation, reference, facts);
    return this.lookups.counted(caller, async () => {
      switch (operation) {
        case 'status':
          return this.queries.execute(new ReadMissionStatus(caller, s256, facts));
        case 'terminate':
          return this.commands.execute(new TerminateMission(caller, s256, body, facts));
        case 'delegation_tree': {
          const { max_results: maxResults, cursor } = jsonShape(DelegationTreeBody, body, 'the request must be a JSON object');
          return this.queries.execute(new ReadDelegationTree(caller, s256, maxResults ?? undefined, cursor, facts));
        }
      }
    });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
