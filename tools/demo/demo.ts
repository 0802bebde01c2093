/**
 * `npm run demo`: the whole story with the SDK, printed step by step. Starts both services on a temporary
 * data directory unless ISSUER_URL and PERSON_SERVER_URL point at running ones (e.g. `npm start`; the
 * demo resource then listens on 127.0.0.1:5000, config/person-server.json's revocation endpoint).
 * Exits 0 only if every step behaved as the specs say.
 */
import { DemoResource } from './stack/demo-resource.js';
import { Stack } from './stack/stack.js';
import { issuerStory } from './story/issuer-story.js';
import { metricsStory } from './story/metrics-story.js';
import { Narrator } from './story/narrator.js';
import { personServerStory } from './story/person-server-story.js';

async function main(): Promise<number> {
  const say = new Narrator();
  const started = Date.now();
  let stack: Stack | undefined;
  let external: DemoResource | undefined;
  try {
    let issuerUrl = process.env['ISSUER_URL'];
    let psUrl = process.env['PERSON_SERVER_URL'];
    let resource: DemoResource;
    if (issuerUrl !== undefined && psUrl !== undefined) {
      external = new DemoResource(Number(process.env['DEMO_RESOURCE_PORT'] ?? 5000));
      await external.start();
      resource = external;
      process.stdout.write(`using running services: issuer ${issuerUrl}, Person Server ${psUrl}\n`);
    } else {
      process.stdout.write('starting the issuer and the Person Server on a temporary data directory…\n');
      stack = await Stack.start({ managementPorts: true });
      ({ issuerUrl, personServerUrl: psUrl, resource } = stack);
      process.stdout.write(`issuer ${issuerUrl}, Person Server ${psUrl}\n`);
    }
    const terminateAtThePersonServer = await personServerStory(psUrl, resource, say);
    await issuerStory(issuerUrl, say);
    await terminateAtThePersonServer();
    if (stack?.management) {
      await metricsStory([
        { name: 'issuer', publicUrl: issuerUrl, managementUrl: stack.management.issuer },
        { name: 'person-server', publicUrl: psUrl, managementUrl: stack.management.personServer },
      ], say);
    }
  } catch (error) {
    say.expect(false, `the demo stopped: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await stack?.stop();
    await external?.stop();
  }
  process.stdout.write(`\n${say.failed === 0 ? 'demo passed' : `demo FAILED: ${say.failed} step(s) did not behave as specified`} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  return say.failed === 0 ? 0 : 1;
}

process.exitCode = await main();
