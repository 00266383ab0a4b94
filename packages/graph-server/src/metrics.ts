/** Prometheus metrics of one server instance (its own registry, so tests can run several). */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route'>;
  authFailures: Counter<'code'>;
  uploadedQuads: Counter;
  queries: Counter<'outcome'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'ianode_graph_' });
  return {
    registry,
    requests: new Counter({ name: 'ianode_http_requests_total', help: 'HTTP requests by route and status', labelNames: ['method', 'route', 'status'], registers: [registry] }),
    duration: new Histogram({
      name: 'ianode_http_request_duration_seconds',
      help: 'HTTP request duration',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 60],
      registers: [registry],
    }),
    authFailures: new Counter({ name: 'ianode_auth_failures_total', help: 'Refused requests by auth error code', labelNames: ['code'], registers: [registry] }),
    uploadedQuads: new Counter({ name: 'ianode_uploaded_quads_total', help: 'Quads stored by uploads', registers: [registry] }),
    queries: new Counter({ name: 'ianode_queries_total', help: 'SPARQL queries by outcome', labelNames: ['outcome'], registers: [registry] }),
  };
}
