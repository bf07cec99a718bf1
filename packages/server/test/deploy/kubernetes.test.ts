/**
 * The Kubernetes manifests of deploy/kubernetes are documentation (no cluster or image registry
 * is reachable here), so this is what checks them: each one parses as YAML, validates against the
 * schema of its kind from the Kubernetes API (the kubernetes-models package, offline), and agrees
 * with the others and with the server (selectors, ports, the health route, the drain).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { Service } from 'kubernetes-models/v1';
import { describe, expect, test } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { DEFAULT_DRAIN_TIMEOUT, DEFAULT_PORT } from '../../src/options.ts';

const DIRECTORY = new URL('../../../../deploy/kubernetes', import.meta.url).pathname;

/** The model of each kind the manifests hold, by `apiVersion kind`. */
const MODELS: Readonly<Record<string, new (data: never) => { validate(): void }>> = {
  'apps/v1 Deployment': Deployment,
  'v1 Service': Service,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2 HorizontalPodAutoscaler': HorizontalPodAutoscaler,
};

interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  // biome-ignore lint/suspicious/noExplicitAny: a manifest is read field by field below, as YAML gives it.
  readonly [field: string]: any;
}

/** Every document of every file, parsed as Kubernetes reads YAML (1.1). */
function manifests(): { file: string; manifest: Manifest }[] {
  return readdirSync(DIRECTORY)
    .filter((file) => file.endsWith('.yaml'))
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(DIRECTORY, file), 'utf8'), { version: '1.1' }).map((document) => {
        expect(document.errors, file).toStrictEqual([]);
        expect(document.warnings, file).toStrictEqual([]);
        return { file, manifest: document.toJS() as Manifest };
      }),
    );
}

/** Throws what the schema of its kind says is wrong with it. */
function validate(manifest: Manifest): void {
  const Model = MODELS[`${manifest.apiVersion} ${manifest.kind}`];
  if (Model === undefined) throw new Error(`no schema for ${manifest.apiVersion} ${manifest.kind}`);
  new Model(manifest as never).validate();
}

function one(kind: string): Manifest {
  const found = manifests().filter(({ manifest }) => manifest.kind === kind);
  expect(found, kind).toHaveLength(1);
  return (found[0] as { manifest: Manifest }).manifest;
}

describe('the Kubernetes manifests', () => {
  test('are a Deployment, a Service, a PodDisruptionBudget and a HorizontalPodAutoscaler, each valid for its kind', () => {
    const all = manifests();
    expect(all.map(({ manifest }) => manifest.kind).sort()).toStrictEqual([
      'Deployment',
      'HorizontalPodAutoscaler',
      'PodDisruptionBudget',
      'Service',
    ]);
    for (const { file, manifest } of all) expect(() => validate(manifest), file).not.toThrow();
  });

  test('a manifest its schema forbids is refused, naming the field', () => {
    const deployment = structuredClone(one('Deployment'));
    deployment.spec.replicas = 'three';
    expect(() => validate(deployment)).toThrow(/data\/spec\/replicas must be integer/);
    const service = structuredClone(one('Service'));
    delete service.spec.ports[0].port;
    expect(() => validate(service)).toThrow(/data\/spec\/ports\/0 must have required property port/);
  });

  test('agree with each other and with the server', () => {
    const deployment = one('Deployment');
    const pod = deployment.spec.template;
    const labels = pod.metadata.labels;
    expect(deployment.spec.selector.matchLabels).toStrictEqual(labels);
    expect(one('Service').spec.selector).toStrictEqual(labels);
    expect(one('PodDisruptionBudget').spec.selector.matchLabels).toStrictEqual(labels);
    expect(one('HorizontalPodAutoscaler').spec.scaleTargetRef).toStrictEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: deployment.metadata.name,
    });

    const [container] = pod.spec.containers;
    const args: string[] = container.args;
    const flag = (name: string) => args[args.indexOf(name) + 1];
    expect(flag('--port')).toBe(String(DEFAULT_PORT));
    expect(container.ports).toStrictEqual([{ name: 'ws', containerPort: DEFAULT_PORT }]);
    expect(one('Service').spec.ports).toStrictEqual([{ name: 'ws', port: DEFAULT_PORT, targetPort: 'ws' }]);
    // The instance is the pod's name, which Kubernetes substitutes from the downward API.
    expect(flag('--instance')).toBe('$(POD_NAME)');
    expect(container.env).toContainEqual({
      name: 'POD_NAME',
      valueFrom: { fieldRef: { fieldPath: 'metadata.name' } },
    });
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
      expect(container[probe].httpGet, probe).toStrictEqual({ path: '/healthz', port: 'ws' });
    }

    // The kubelet waits out the preStop pause and the whole drain before it sends SIGKILL, and a
    // draining pod (503) is not restarted for failing its liveness probe meanwhile.
    const drain = DEFAULT_DRAIN_TIMEOUT / 1000;
    const pause = container.lifecycle.preStop.sleep.seconds;
    expect(pod.spec.terminationGracePeriodSeconds).toBeGreaterThan(pause + drain);
    expect(container.livenessProbe.periodSeconds * container.livenessProbe.failureThreshold).toBeGreaterThan(
      drain,
    );
  });
});
