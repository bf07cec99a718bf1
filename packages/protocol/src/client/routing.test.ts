import { describe, expect, test } from 'vitest';
import { INSTANCE_PARAMETER, instanceOf, instanceUrl } from './routing.ts';

describe('routing a connection to the instance holding a retained execution', () => {
  test('the instance is the part of the id before its first dot', () => {
    expect(instanceOf('executor-b.4f1c2d3e-0000-4000-8000-000000000000')).toBe('executor-b');
    expect(instanceOf('a.b.c')).toBe('a');
    expect(instanceOf('4f1c2d3e-0000-4000-8000-000000000000')).toBeUndefined();
    expect(instanceOf('.leading-dot')).toBeUndefined();
  });

  test('the URL names it in the query parameter a balancer routes on, keeping the rest', () => {
    expect(INSTANCE_PARAMETER).toBe('instance');
    expect(instanceUrl('wss://executors.example/', 'executor-b.4f1c')).toBe(
      'wss://executors.example/?instance=executor-b',
    );
    expect(instanceUrl(new URL('ws://127.0.0.1:8790/codemode?region=eu&instance=old'), 'executor-a.1')).toBe(
      'ws://127.0.0.1:8790/codemode?region=eu&instance=executor-a',
    );
    expect(instanceUrl('ws://127.0.0.1:8790/', '4f1c2d3e')).toBe('ws://127.0.0.1:8790/');
  });
});
