import { SubscriptionHealth } from '@hcn/eventstore';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import { parse } from 'yaml';
import { AgentMetrics } from '../apps/agent/src/agent-metrics';
import { HubMetrics } from '../apps/hub/src/common/metrics';
import { registerProjectionLag } from '../apps/hub/src/health/projection-lag.metric';
import { ProjectorMetrics } from '../apps/projector/src/projector-metrics';

/** Every series name each app's registry exposes (a histogram's _bucket, _sum and _count), with its labels. */
function registered(): Map<string, Set<string>> {
  const hub = new HubMetrics();
  registerProjectionLag(hub, {} as DataSource); // read at scrape time only: no database is touched here
  const registries: Registry[] = [
    hub.registry,
    new ProjectorMetrics(new SubscriptionHealth()).registry,
    new AgentMetrics().registry,
  ];
  const names = new Map<string, Set<string>>();
  for (const registry of registries)
    for (const metric of registry.getMetricsAsArray()) {
      const { name, labelNames = [] } = metric as unknown as { name: string; labelNames?: string[] };
      const type = (metric as unknown as { type?: string }).type;
      const series = type === 'histogram' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name];
      for (const s of series) {
        const labels = names.get(s) ?? new Set<string>();
        for (const l of labelNames) labels.add(l);
        if (type === 'histogram' && s.endsWith('_bucket')) labels.add('le');
        names.set(s, labels);
      }
    }
  return names;
}

/** The HCN metrics a PromQL expression selects, with the label names its selectors match on. */
function referenced(expr: string): Array<{ name: string; labels: string[] }> {
  return [...expr.matchAll(/\b(hcn_[a-z0-9_]+)(\{([^}]*)\})?/g)].map((m) => ({
    name: m[1],
    labels: [...(m[3] ?? '').matchAll(/(\w+)\s*(=~|!~|!=|=)/g)].map((l) => l[1]),
  }));
}

const deploy = (...path: string[]) => readFileSync(join(__dirname, ...path), 'utf8');

describe('deploy/: Grafana dashboard and Prometheus alert rules', () => {
  const names = registered();
  const alerts = parse(deploy('prometheus', 'hcn-alerts.yml')) as {
    groups: Array<{
      name: string;
      rules: Array<{ alert: string; expr: string; for?: string; labels?: object }>;
    }>;
  };
  const rules = alerts.groups.flatMap((g) => g.rules);
  const dashboard = JSON.parse(deploy('grafana', 'hcn-dashboard.json')) as {
    uid: string;
    panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
  };
  const panelExprs = dashboard.panels.flatMap((p) =>
    p.targets.map((t) => ({ where: p.title, expr: t.expr })),
  );
  const ruleExprs = rules.map((r) => ({ where: r.alert, expr: r.expr }));

  it('the registries hold what the files are about (sanity of the collection itself)', () => {
    for (const name of [
      'hcn_http_requests_total',
      'hcn_projector_lag_seconds',
      'hcn_agent_outbox_reports',
      'hcn_build_info',
    ])
      expect(names.has(name)).toBe(true);
  });

  it.each([...panelExprs, ...ruleExprs].map((e) => [e.where, e.expr]))(
    '%s references only metrics and labels some app registers',
    (_where, expr) => {
      const refs = referenced(expr);
      expect(refs.length).toBeGreaterThan(0);
      for (const ref of refs) {
        expect({ metric: ref.name, registered: names.has(ref.name) }).toEqual({
          metric: ref.name,
          registered: true,
        });
        for (const label of ref.labels)
          expect([ref.name, names.get(ref.name)?.has(label)]).toEqual([ref.name, true]);
      }
    },
  );

  it('alerts on node offline ratio, projection lag, failing subscriptions, DLQ growth and scheduling latency', () => {
    const covers = (metric: string) => rules.some((r) => r.expr.includes(metric));
    for (const metric of [
      'hcn_liveness_nodes',
      'hcn_projection_lag_seconds',
      'hcn_projector_lag_seconds',
      'hcn_subscription_failing',
      'hcn_agent_reports_rejected_total',
      'hcn_scheduling_decision_seconds_bucket',
    ])
      expect([metric, covers(metric)]).toEqual([metric, true]);
    for (const rule of rules) {
      expect(rule.alert).toMatch(/^Hcn[A-Za-z]+$/);
      expect(rule.labels).toHaveProperty('severity');
    }
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
  });

  it('the dashboard charts the same, and HTTP rate, errors and latency', () => {
    const charted = (metric: string) => panelExprs.some((p) => p.expr.includes(metric));
    for (const metric of [
      'hcn_liveness_nodes',
      'hcn_projection_lag_seconds',
      'hcn_subscription_failing',
      'hcn_agent_reports_rejected_total',
      'hcn_scheduling_decision_seconds_bucket',
      'hcn_http_requests_total',
      'hcn_http_request_errors_total',
      'hcn_http_request_duration_seconds_bucket',
    ])
      expect([metric, charted(metric)]).toEqual([metric, true]);
    expect(dashboard.uid).toBe('hcn-overview');
  });
});
