import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderKustomization, type Manifest } from './render/kustomize-subset.js';
import { podSpecOf } from './render/name-references.js';

/**
 * Issue 15 item 3, ADR 0064: each service's V8 heap bound follows its container's memory limit. The rendered
 * Deployments read the limit through the Downward API (`MEMORY_LIMIT_MIB`) and start the image's CMD through a shell
 * that passes `--max-old-space-size` = 40 % of it. These tests run that very command (after Kubernetes' own `$(VAR)`
 * expansion) with a stand-in `node` that prints its arguments and PID, so what is checked is what the pod would run.
 */
const here = dirname(fileURLToPath(import.meta.url));
const OVERLAYS = ['dev', 'production'] as const;
const SERVICES = ['issuer', 'person-server'] as const;
/** ADR 0064: the hour-long soak held the Person Server's RSS at ≤ 256 MB with a 128 MiB heap; 40 % of 320Mi. */
const HEAP_SHARE_OF_LIMIT = 0.4;

type EnvVar = { name: string; value?: string; valueFrom?: { resourceFieldRef?: { resource: string; divisor?: string | number; containerName?: string } } };
type Container = { name: string; command?: string[]; args?: string[]; env?: EnvVar[]; resources?: { limits?: Record<string, string> } };

const imageCommand = JSON.parse(/^CMD (\[.*\])$/m.exec(readFileSync(resolve(here, '../../Dockerfile'), 'utf8'))![1]!) as string[];

function container(manifests: Manifest[], name: string): Container {
  const deployment = manifests.find((manifest) => manifest.kind === 'Deployment' && manifest.metadata.name === name);
  return (podSpecOf(deployment!)!['containers'] as Container[])[0]!;
}

/**
 * Kubernetes' expansion of `command` (k8s.io/kubernetes third_party/forked/golang/expansion): `$(NAME)` of a defined
 * variable is replaced, `$$` is a literal `$`, anything else — an unknown name, `$((` — stays as written.
 */
function kubernetesExpand(input: string, variables: ReadonlyMap<string, string>): string {
  let output = '';
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== '$' || cursor + 1 >= input.length) {
      output += input[cursor];
      continue;
    }
    const next = input[cursor + 1];
    if (next === '$') {
      output += '$';
      cursor++;
    } else if (next === '(' && input.indexOf(')', cursor + 2) !== -1) {
      const close = input.indexOf(')', cursor + 2);
      const name = input.slice(cursor + 2, close);
      output += variables.get(name) ?? `$(${name})`;
      cursor = close;
    } else output += '$';
  }
  return output;
}

/** Runs the container's command as the kubelet would, with `node` replaced by a script that prints `$$` and its arguments. */
function runEntry(spec: Container, memoryLimitMib: string | undefined): { status: number | null; pid: number; lines: string[]; stderr: string } {
  const bin = mkdtempSync(join(tmpdir(), 'heap-bound-'));
  try {
    writeFileSync(join(bin, 'node'), '#!/bin/sh\necho "$$"\nfor argument in "$@"; do echo "$argument"; done\n');
    chmodSync(join(bin, 'node'), 0o755);
    const literals = new Map((spec.env ?? []).filter((variable) => variable.value !== undefined).map((variable) => [variable.name, variable.value!]));
    const [program, ...rest] = (spec.command ?? []).map((part) => kubernetesExpand(part, literals));
    const env: NodeJS.ProcessEnv = { PATH: `${bin}:/usr/bin:/bin`, ...(memoryLimitMib !== undefined ? { MEMORY_LIMIT_MIB: memoryLimitMib } : {}) };
    const run = spawnSync(program!, rest, { env, encoding: 'utf8' });
    return { status: run.status, pid: run.pid, lines: run.stdout.trim().split('\n'), stderr: run.stderr };
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
}

describe.each(OVERLAYS)('tools/k8s/overlays/%s: the V8 heap bound follows the memory limit (issue 15 item 3, ADR 0064)', (overlay) => {
  const manifests = renderKustomization(join(here, 'overlays', overlay));

  it.each(SERVICES)('%s: MEMORY_LIMIT_MIB is the container memory limit in MiB, from the Downward API; no fixed bound in NODE_OPTIONS', (service) => {
    const spec = container(manifests, service);
    const limit = spec.env?.find((variable) => variable.name === 'MEMORY_LIMIT_MIB');
    expect(limit?.valueFrom?.resourceFieldRef).toEqual({ resource: 'limits.memory', divisor: '1Mi' });
    expect(spec.resources?.limits?.['memory']).toMatch(/^\d+Mi$/);
    expect(spec.env?.find((variable) => variable.name === 'NODE_OPTIONS')?.value ?? '').not.toMatch(/max[-_]old[-_]space/);
    expect(spec.args).toBeUndefined();
  });

  it.each(SERVICES)('%s: the pod runs the image CMD with --max-old-space-size = 40 %% of its limit, exec-ed (node is PID 1 and gets SIGTERM)', (service) => {
    const spec = container(manifests, service);
    const limitMi = Number(/^(\d+)Mi$/.exec(spec.resources!.limits!['memory']!)![1]);
    const run = runEntry(spec, String(limitMi));
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const [pid, ...argv] = run.lines;
    expect(argv).toEqual([`--max-old-space-size=${Math.floor(limitMi * HEAP_SHARE_OF_LIMIT)}`, ...imageCommand.slice(1)]);
    expect(imageCommand[0]).toBe('node');
    // The shell replaced itself with node: the PID the kubelet signals is node's.
    expect(Number(pid)).toBe(run.pid);
  });

  it.each(SERVICES)('%s: another limit gives another bound (the bound is computed, not a constant beside the limit)', (service) => {
    const spec = container(manifests, service);
    for (const limitMi of [256, 512, 1024]) expect(runEntry(spec, String(limitMi)).lines[1]).toBe(`--max-old-space-size=${Math.floor(limitMi * HEAP_SHARE_OF_LIMIT)}`);
  });

  it.each(SERVICES)('%s: without MEMORY_LIMIT_MIB the entry fails naming it and never starts node with a made-up bound', (service) => {
    const run = runEntry(container(manifests, service), undefined);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('MEMORY_LIMIT_MIB');
    expect(run.lines).toEqual(['']);
  });
});
