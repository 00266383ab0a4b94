/** `/$/ping`, `/$/ready`, `/$/metrics`, `/$/kafka` (SPEC §4): no token needed, no data shown. */
import type { FastifyInstance } from 'fastify';
import type { Dataset } from '../dataset.js';
import type { Metrics } from '../metrics.js';
import type { Security } from '../security.js';

export interface HealthContext {
  /** The datasets open now. */
  datasets(): Dataset[];
  security: Security;
  metrics: Metrics;
  /** Why the last audit record could not be written (`audit.file`), if it could not. */
  auditFailure(): string | undefined;
}

const STORAGE_ORDER = ['open', 'closed', 'failed'] as const;

export function registerHealth(app: FastifyInstance, ctx: HealthContext): void {
  app.get('/$/ping', async () => ({ status: 'ok', time: new Date().toISOString() }));
  app.get('/$/ready', async (request, reply) => {
    const checks: Record<string, string> = {};
    const reasons: Record<string, string> = {};
    const perDataset: Record<string, Record<string, string>> = {};
    let ready = true;
    // `checks.storage` and `checks.kafka` are the worst of all datasets (a one-dataset server's own);
    // `datasets` has each one's. Reasons are kinds of failure (errno codes), never paths or data.
    let storage: (typeof STORAGE_ORDER)[number] = 'open';
    const kafkaStates: string[] = [];
    for (const dataset of ctx.datasets()) {
      const own: Record<string, string> = {};
      // Closed, or failed: the store can no longer commit (a log write failed); no figures, no data.
      const status = dataset.storeStatus();
      own.storage = status.state;
      if (STORAGE_ORDER.indexOf(status.state) > STORAGE_ORDER.indexOf(storage)) storage = status.state;
      if (status.state !== 'open') {
        ready = false;
        if (status.reason !== undefined) reasons.storage = reasons.storage ?? status.reason;
      }
      // A failing checkpoint is reported but keeps the server ready: commits still go to the log.
      if (status.checkpoint !== undefined) {
        own.checkpoint = 'failing';
        checks.checkpoint = 'failing';
        reasons.checkpoint = status.checkpoint;
      }
      if (dataset.kafka) {
        // A stopped connector serves an ever older state: out of the load balancer's rotation.
        const state = dataset.kafka.status().state;
        own.kafka = state;
        kafkaStates.push(state);
        if (state !== 'running') ready = false;
      }
      perDataset[dataset.name] = own;
    }
    checks.storage = storage;
    if (kafkaStates.length > 0) checks.kafka = kafkaStates.find((state) => state !== 'running') ?? 'running';
    // Writes must leave an audit record: an audit file that cannot be written takes the server out.
    const auditFailure = ctx.auditFailure();
    if (auditFailure !== undefined) {
      checks.audit = 'failing';
      reasons.audit = `the audit file could not be written (${auditFailure})`;
      ready = false;
    }
    if (ctx.security.secure) {
      try {
        await ctx.security.checkAccessService();
        checks.accessService = 'reachable';
      } catch (error) {
        request.log.warn({ err: (error as Error).message }, 'readiness: access service not reachable');
        checks.accessService = 'unreachable';
        ready = false;
      }
    }
    return reply.code(ready ? 200 : 503).send({
      ready,
      mode: ctx.security.secure ? 'secure' : 'open',
      checks,
      datasets: perDataset,
      ...(Object.keys(reasons).length > 0 ? { reasons } : {}),
    });
  });
  // The Kafka connectors (docs/kafka.md): position, end, lag, counts, why one stopped.
  app.get('/$/kafka', async () => ({ connectors: ctx.datasets().flatMap((dataset) => (dataset.kafka ? [dataset.kafka.status()] : [])) }));
  app.get('/$/metrics', async (_request, reply) => {
    reply.type(ctx.metrics.registry.contentType);
    return ctx.metrics.registry.metrics();
  });
}
