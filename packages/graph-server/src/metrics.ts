/** Prometheus metrics of one server instance (its own registry, so tests can run several). */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ConnectorStatus } from './kafka/connector.js';

export interface Metrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route'>;
  authFailures: Counter<'code'>;
  uploadedQuads: Counter;
  queries: Counter<'outcome'>;
  /** Kafka messages by what became of them (applied, refused, malformed, dead-lettered). */
  kafkaMessages: Counter<'outcome'>;
  /** Report a dataset's Kafka connector position at each scrape (label `dataset`). */
  watchKafka(dataset: string, status: () => ConnectorStatus): void;
  /** Report a dataset's query pool figures (pool/pool.ts `stats`) at each scrape (label `dataset`). */
  watchPool(dataset: string, stats: () => PoolFigures): void;
  /** One answered request: `ianode_http_requests_total` and its duration (`ms`, Fastify's elapsedTime). */
  observe(method: string, route: string, status: number, ms: number): void;
  /** A dataset removed from the server: its gauges go. */
  unwatch(dataset: string): void;
}

type PoolFigures = { ready: number; busy: number; queued: number; killed: number; crashed: number };

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'ianode_graph_' });
  // Gauges of every dataset's query pool and Kafka connector, labelled by dataset, read at each scrape.
  const pools = new Map<string, () => PoolFigures>();
  const connectors = new Map<string, () => ConnectorStatus>();
  const perDataset = <T>(sources: Map<string, () => T>, name: string, help: string, pick: (value: T) => number) =>
    new Gauge({
      name, help, labelNames: ['dataset'], registers: [registry],
      collect() {
        this.reset();
        for (const [dataset, read] of sources) this.set({ dataset }, pick(read()));
      },
    });
  // Figures of the pool's own work only: nothing in them depends on the data.
  perDataset(pools, 'ianode_query_workers_ready', 'Query worker threads started and ready (spares included)', (s) => s.ready);
  perDataset(pools, 'ianode_query_workers_busy', 'Query worker threads running a query', (s) => s.busy);
  perDataset(pools, 'ianode_query_queue_length', 'Queries waiting for a free worker', (s) => s.queued);
  perDataset(pools, 'ianode_query_workers_killed', 'Query workers terminated at a deadline or after the client left, since the start', (s) => s.killed);
  perDataset(pools, 'ianode_query_workers_crashed', 'Query workers that died by themselves, since the start', (s) => s.crashed);
  const offset = (text: string | null) => (text === null ? -1 : Number(text));
  perDataset(connectors, 'ianode_kafka_applied_offset', 'Last offset of the topic applied to the store (-1: none)', (s) => offset(s.partitions[0]!.applied));
  perDataset(connectors, 'ianode_kafka_end_offset', 'Offset the next message of the topic will get, as last seen', (s) => offset(s.partitions[0]!.end));
  perDataset(connectors, 'ianode_kafka_lag', 'Messages in the topic not yet applied here, as last seen', (s) => s.partitions[0]!.lag ?? -1);
  perDataset(connectors, 'ianode_kafka_running', '1 while the Kafka connector applies messages, 0 when stopped', (s) => (s.state === 'running' ? 1 : 0));
  const metrics: Metrics = {
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
    kafkaMessages: new Counter({ name: 'ianode_kafka_messages_total', help: 'Kafka messages by outcome (applied, refused, malformed, dead-lettered)', labelNames: ['outcome'], registers: [registry] }),
    watchKafka(dataset, status) {
      connectors.set(dataset, status);
    },
    watchPool(dataset, stats) {
      pools.set(dataset, stats);
    },
    unwatch(dataset) {
      pools.delete(dataset);
      connectors.delete(dataset);
    },
    observe(method, route, status, ms) {
      metrics.requests.inc({ method, route, status: String(status) });
      metrics.duration.observe({ method, route }, ms / 1000);
    },
  };
  return metrics;
}
