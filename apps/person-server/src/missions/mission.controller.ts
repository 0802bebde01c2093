import { Controller, Get, Inject, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { SERVICE_SETTINGS, type ServiceSettings } from '@mission/platform';
import { isMissionS256 } from '@mission/ps-domain';
import { SecurityAudit } from '../abuse/security-audit.js';
import { callerKey, type AuthenticatedCaller } from '../identity/authenticated-caller.js';
import { InvalidManagementRequestError, InvalidMissionReferenceError, MissionNotFoundError, UnsupportedOperationError } from '../errors/problem-errors.js';
import { Caller, SignedRequestGuard } from '../auth/signed-request.guard.js';
import { requestFacts, type RequestFacts } from '../http/request-facts.js';
import { strictJsonBody } from '../http/strict-json-body.js';
import { MissionManagement } from './mission-management.service.js';
import { MissionProposals } from './mission-proposals.service.js';
import { MissionTermination } from './mission-termination.service.js';
import { toProblem } from '../errors/mission-problems.js';
import { ProbeLimiter } from '../abuse/probe-limiter.js';

/** Spec 4: the operations this PS implements (also in its metadata, spec 2.2). */
export const MANAGEMENT_OPERATIONS = ['status', 'terminate', 'delegation_tree'] as const;
/** DESIGN 3.1: seconds an agent waits between polls of a pending proposal. */
export const PENDING_RETRY_AFTER_SECONDS = 5;

/**
 * The mission endpoint (DESIGN 3.1, spec 4): `POST /mission` (proposal, or a management operation when
 * the body has `operation`), `GET /mission/pending/{id}`, `POST /mission/approvals`. Every route is
 * signed (spec 5.1, DESIGN 3.2) and every answer carries `Cache-Control: no-store` (spec 5.8).
 */
@Controller('mission')
@UseGuards(SignedRequestGuard)
export class MissionController {
  constructor(
    private readonly missions: MissionManagement,
    private readonly proposals: MissionProposals,
    private readonly termination: MissionTermination,
    private readonly audit: SecurityAudit,
    private readonly probes: ProbeLimiter,
    @Inject(SERVICE_SETTINGS) private readonly settings: ServiceSettings,
  ) {}

  @Post()
  async mission(@Caller() caller: AuthenticatedCaller, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<unknown> {
    response.setHeader('Cache-Control', 'no-store');
    try {
      const body = strictJsonBody(request);
      if (isObject(body) && Object.hasOwn(body, 'operation')) {
        const answer = await this.operation(caller, body, requestFacts(request, response));
        response.status(200);
        return answer;
      }
      const pendingId = await this.proposals.propose(caller, body);
      response.status(202);
      response.setHeader('Location', `${this.settings.baseUrl}/mission/pending/${pendingId}`);
      response.setHeader('Retry-After', String(PENDING_RETRY_AFTER_SECONDS));
      return { status: 'pending' };
    } catch (error) {
      throw toProblem(error);
    }
  }

  @Get('pending/:id')
  async pending(@Caller() caller: AuthenticatedCaller, @Param('id') id: string, @Res({ passthrough: true }) response: Response): Promise<unknown> {
    response.setHeader('Cache-Control', 'no-store');
    try {
      const result = await this.proposals.poll(caller, id);
      switch (result.status) {
        case 'pending':
          response.status(202).setHeader('Retry-After', String(PENDING_RETRY_AFTER_SECONDS));
          return { status: 'pending' };
        case 'approved':
          response.status(200);
          return { s256: result.s256, mission: result.mission };
        case 'declined':
          response.status(403);
          return { error: 'denied' };
      }
    } catch (error) {
      throw toProblem(error);
    }
  }

  @Post('approvals')
  async approvals(@Caller() caller: AuthenticatedCaller, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<unknown> {
    response.setHeader('Cache-Control', 'no-store');
    try {
      const answer = await this.proposals.decide(caller, strictJsonBody(request));
      response.status(200);
      return answer;
    } catch (error) {
      throw toProblem(error);
    }
  }

  /** Spec 4: unknown operation → unsupported_operation; malformed reference → invalid_mission_reference before any lookup. */
  private async operation(caller: AuthenticatedCaller, body: Record<string, unknown>, seen: RequestFacts): Promise<unknown> {
    const operation = body['operation'];
    if (typeof operation !== 'string') throw new InvalidManagementRequestError('operation must be a string');
    if (!(MANAGEMENT_OPERATIONS as readonly string[]).includes(operation)) throw new UnsupportedOperationError();
    const key = callerKey(caller);
    // Spec 5.9, 8: a caller with too many failed lookups is refused before any lookup.
    this.probes.check(key);
    const s256 = body['mission_s256'];
    if (!isMissionS256(s256)) {
      // Spec 5.9: security-logged without the raw value (it is not a reference; nothing to digest).
      this.audit.record({ kind: 'malformed_reference', reason: operation, caller, ...seen });
      this.probes.recordFailure(key);
      throw new InvalidMissionReferenceError();
    }
    try {
      switch (operation) {
        case 'status':
          return await this.missions.status(caller, s256, seen);
        case 'terminate':
          return await this.termination.terminate(caller, s256, body, seen);
        default:
          return await this.missions.delegationTree(caller, s256, body, seen);
      }
    } catch (error) {
      const problem = toProblem(error);
      if (problem instanceof MissionNotFoundError) this.probes.recordFailure(key);
      throw problem;
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
