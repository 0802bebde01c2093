import { ResourceAccessError } from './errors.js';
import type { MissionResourceServer, RequiredAuthority } from './resource-server.js';

/** The slice of an Express / Nest (platform-express) request and response the middleware uses. */
export interface NodeStyleRequest {
  readonly method: string;
  readonly originalUrl?: string;
  readonly url?: string;
  readonly headers: Record<string, string | string[] | undefined>;
  mission?: unknown;
}
export interface NodeStyleResponse {
  status(code: number): NodeStyleResponse;
  setHeader(name: string, value: string): unknown;
  json(body: unknown): unknown;
}

/**
 * Express / Nest middleware form of {@link MissionResourceServer.authorize}. `publicOrigin` is the
 * origin clients call (the DPoP `htu`); default: `http://` + the Host header. On success the verified
 * result is `req.mission`; on refusal 401/403 with a `WWW-Authenticate: DPoP` challenge and a JSON error.
 */
export function missionMiddleware(server: MissionResourceServer, required: RequiredAuthority | ((req: NodeStyleRequest) => RequiredAuthority), options: { publicOrigin?: string } = {}) {
  return (req: NodeStyleRequest, res: NodeStyleResponse, next: (error?: unknown) => void): void => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    const origin = options.publicOrigin ?? `http://${headers.get('host') ?? 'localhost'}`;
    const request = new Request(new URL(req.originalUrl ?? req.url ?? '/', origin), { method: req.method, headers });
    server
      .authorize(request, typeof required === 'function' ? required(req) : required)
      .then((authorized) => {
        req.mission = authorized;
        next();
      })
      .catch((error: unknown) => {
        if (!(error instanceof ResourceAccessError)) return next(error);
        res.setHeader('WWW-Authenticate', `DPoP error="${error.status === 401 ? 'invalid_token' : 'insufficient_scope'}", algs="ES256 EdDSA"`);
        res.status(error.status).json({ error: error.code, error_description: error.message });
      });
  };
}
