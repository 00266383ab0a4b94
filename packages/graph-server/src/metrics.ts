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
  /** Report the Kafka connector's position at each scrape. */
  watchKafka(status: () => ConnectorStatus): void;
  /** Report the query pool's figures (pool/pool.ts `stats`) at each scrape. */
  watchPool(stats: () => { ready: number; busy: number; queued: number; killed: number; crashed: number }): void;
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
    kafkaMessages: new Counter({ name: 'ianode_kafka_messages_total', help: 'Kafka messages by outcome (applied, refused, malformed, dead-lettered)', labelNames: ['outcome'], registers: [registry] }),
    watchKafka(status) {
      const offset = (text: string | null) => (text === null ? -1 : Number(text));
      new Gauge({ name: 'ianode_kafka_applied_offset', help: 'Last offset of the topic applied to the store (-1: none)', registers: [registry], collect() { this.set(offset(status().partitions[0]!.applied)); } });
      new Gauge({ name: 'ianode_kafka_end_offset', help: 'Offset the next message of the topic will get, as last seen', registers: [registry], collect() { this.set(offset(status().partitions[0]!.end)); } });
      new Gauge({ name: 'ianode_kafka_lag', help: 'Messages in the topic not yet applied here, as last seen', registers: [registry], collect() { this.set(status().partitions[0]!.lag ?? -1); } });
      new Gauge({ name: 'ianode_kafka_running', help: '1 while the Kafka connector applies messages, 0 when stopped', registers: [registry], collect() { this.set(status().state === 'running' ? 1 : 0); } });
    },
    watchPool(stats) {
      // Figures of the pool's own work only: nothing in them depends on the data.
      const gauge = (name: string, help: string, pick: (s: ReturnType<typeof stats>) => number) =>
        new Gauge({ name, help, registers: [registry], collect() { this.set(pick(stats())); } });
      gauge('ianode_query_workers_ready', 'Query worker threads started and ready (spares included)', (s) => s.ready);
      gauge('ianode_query_workers_busy', 'Query worker threads running a query', (s) => s.busy);
      gauge('ianode_query_queue_length', 'Queries waiting for a free worker', (s) => s.queued);
      gauge('ianode_query_workers_killed', 'Query workers terminated at a deadline or after the client left, since the start', (s) => s.killed);
      gauge('ianode_query_workers_crashed', 'Query workers that died by themselves, since the start', (s) => s.crashed);
    },
  };
}
