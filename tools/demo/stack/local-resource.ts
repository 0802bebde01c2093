/**
 * A resource server on 127.0.0.1 guarded by the SDK's {@link missionMiddleware}: `GET /invoices` needs
 * `invoices.read`, `POST /invoices` needs `invoices.write`, on `https://erp.example.com/invoices`.
 */
import { createServer, type Server } from 'node:http';
import { missionMiddleware, type MissionResourceServer, type NodeStyleRequest, type NodeStyleResponse } from '@mission/mission-client';
import { freePort } from './service-process.js';
import { INVOICES } from '../story/authority.js';

export class LocalResource {
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(guard: MissionResourceServer): Promise<LocalResource> {
    const port = await freePort();
    const middleware = missionMiddleware(guard, (req) => ({ action: req.method === 'GET' ? 'invoices.read' : 'invoices.write', resource: INVOICES }));
    const server = createServer((request, response) => {
      const res: NodeStyleResponse = {
        status: (code) => ((response.statusCode = code), res),
        setHeader: (name, value) => response.setHeader(name, value),
        json: (body) => response.setHeader('content-type', 'application/json').end(JSON.stringify(body)),
      };
      const req = request as unknown as NodeStyleRequest;
      middleware(req, res, (error) => {
        if (error !== undefined) return void response.writeHead(500).end(String(error));
        const mission = req.mission as { missionId: string; decision: { reason: string } };
        res.status(200).json({ invoices: ['INV-1', 'INV-2'], mission: mission.missionId, decision: mission.decision.reason });
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
    return new LocalResource(server, `http://127.0.0.1:${port}/invoices`);
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
