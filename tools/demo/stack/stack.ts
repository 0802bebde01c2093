/**
 * Both services on temporary data directories, as the demo and the SDK's end-to-end tests use them:
 * the built bundle of each (`dist/bundle/main.mjs`, ADR 0078; run `npm run build` first), the demo registries of `config/`, the Person
 * Server's demo resource pointed at a local revocation endpoint.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DemoResource } from './demo-resource.js';
import { freePort, ServiceProcess } from './service-process.js';

/** The checkout this file lives in (from source or from `dist/`): the nearest folder with `config/issuer.json`. */
export const repositoryRoot = ((): string => {
  let folder = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(folder, 'config/issuer.json')) && dirname(folder) !== folder) folder = dirname(folder);
  return resolve(folder);
})();

export interface StackOptions {
  /** Members merged into config/issuer.json's `child_missions` (e.g. experimental cascade modes). */
  readonly issuerChildMissions?: Record<string, unknown>;
  readonly issuerConfig?: Record<string, unknown>;
  readonly personServerConfig?: Record<string, unknown>;
  /** Extra environment of the issuer process (e.g. `DPOP_NONCE_SECRET`). */
  readonly issuerEnv?: Record<string, string>;
  /** Port of the local demo resource's revocation endpoint (default: a free one). */
  readonly resourcePort?: number;
  /** Serve /metrics, /healthz, /readyz on a MANAGEMENT_PORT of each service (issue 18). */
  readonly managementPorts?: boolean;
}

export class Stack {
  private constructor(
    readonly issuerUrl: string,
    readonly personServerUrl: string,
    readonly resource: DemoResource,
    /** With `managementPorts`: the management servers' URLs. */
    readonly management: { readonly issuer: string; readonly personServer: string } | undefined,
    private readonly dataDir: string,
    private issuer: ServiceProcess | undefined,
    private personServer: ServiceProcess | undefined,
    private readonly issuerEnv: Record<string, string>,
  ) {}

  static async start(options: StackOptions = {}): Promise<Stack> {
    const dataDir = mkdtempSync(join(tmpdir(), 'mission-stack-'));
    const resource = new DemoResource(options.resourcePort ?? (await freePort()));
    await resource.start();
    const issuerConfig = readJson(join(repositoryRoot, 'config/issuer.json'));
    const childMissions = { ...(issuerConfig['child_missions'] as Record<string, unknown>), ...options.issuerChildMissions };
    const issuerConfigFile = join(dataDir, 'issuer.json');
    writeFileSync(issuerConfigFile, JSON.stringify({ ...issuerConfig, child_missions: childMissions, ...options.issuerConfig }));
    const psConfig = readJson(join(repositoryRoot, 'config/person-server.json'));
    const resources = (psConfig['resources'] as Record<string, unknown>[]).map((entry) => ({ ...entry, revocation_endpoint: resource.revocationEndpoint }));
    const psConfigFile = join(dataDir, 'person-server.json');
    writeFileSync(psConfigFile, JSON.stringify({ ...psConfig, resources, revocation: { initial_delay_ms: 200, max_delay_ms: 1000 }, ...options.personServerConfig }));
    const [issuerPort, psPort] = [await freePort(), await freePort()];
    const issuerUrl = `http://127.0.0.1:${issuerPort}`;
    const personServerUrl = `http://127.0.0.1:${psPort}`;
    const management = options.managementPorts === true ? { issuer: await freePort(), personServer: await freePort() } : undefined;
    const issuerEnv = {
      PORT: String(issuerPort), BASE_URL: issuerUrl, DATA_DIR: join(dataDir, 'issuer'), CONFIG_FILE: issuerConfigFile,
      ...(management ? { MANAGEMENT_PORT: String(management.issuer) } : {}),
      ...options.issuerEnv,
    };
    const [issuer, personServer] = await Promise.all([
      ServiceProcess.start({ name: 'issuer', main: join(repositoryRoot, 'apps/issuer/dist/bundle/main.mjs'), cwd: repositoryRoot, env: issuerEnv }),
      ServiceProcess.start({
        name: 'person-server', main: join(repositoryRoot, 'apps/person-server/dist/bundle/main.mjs'), cwd: repositoryRoot,
        env: {
          PORT: String(psPort), BASE_URL: personServerUrl, DATA_DIR: join(dataDir, 'person-server'), CONFIG_FILE: psConfigFile,
          ...(management ? { MANAGEMENT_PORT: String(management.personServer) } : {}),
        },
      }),
    ]);
    const managementUrls = management ? { issuer: `http://127.0.0.1:${management.issuer}`, personServer: `http://127.0.0.1:${management.personServer}` } : undefined;
    return new Stack(issuerUrl, personServerUrl, resource, managementUrls, dataDir, issuer, personServer, issuerEnv);
  }

  /** Stops the issuer (its data stays), e.g. to see a status check fail closed. */
  async stopIssuer(): Promise<void> {
    await this.issuer?.stop();
    this.issuer = undefined;
  }

  /** Starts the issuer again on the same port and data directory. */
  async restartIssuer(): Promise<void> {
    if (this.issuer !== undefined) return;
    this.issuer = await ServiceProcess.start({ name: 'issuer', main: join(repositoryRoot, 'apps/issuer/dist/bundle/main.mjs'), cwd: repositoryRoot, env: this.issuerEnv });
  }

  async stop(): Promise<void> {
    await Promise.all([this.issuer?.stop(), this.personServer?.stop(), this.resource.stop()]);
    this.issuer = undefined;
    this.personServer = undefined;
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

function readJson(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
}
