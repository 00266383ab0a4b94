/** `/$/ping`, `/$/ready`, `/$/metrics` (SPEC §4): no token needed, no data shown. */
import type { FastifyInstance } from 'fastify';
import type { RouteContext } from './context.js';

export function registerHealth(app: FastifyInstance, ctx: RouteContext): void {
  app.get('/$/ping', async () => ({ status: 'ok', time: new Date().toISOString() }));
  app.get('/$/ready', async (request, reply) => {
    const checks: Record<string, string> = {};
    const reasons: Record<string, string> = {};
    let ready = true;
    // Closed, or failed: the store can no longer commit (a log write failed); no figures, no data.
    const storage = ctx.storeStatus();
    checks.storage = storage.state;
    if (storage.state !== 'open') {
      ready = false;
      if (storage.reason !== undefined) reasons.storage = storage.reason;
    }
    // A failing checkpoint is reported but keeps the server ready: commits still go to the log.
    if (storage.checkpoint !== undefined) {
      checks.checkpoint = 'failing';
      reasons.checkpoint = storage.checkpoint;
    }
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
    if (ctx.kafka) {
      // A stopped connector serves an ever older state: out of the load balancer's rotation.
      const state = ctx.kafka.status().state;
      checks.kafka = state;
      if (state !== 'running') ready = false;
    }
    return reply.code(ready ? 200 : 503).send({ ready, mode: ctx.security.secure ? 'secure' : 'open', checks, ...(Object.keys(reasons).length > 0 ? { reasons } : {}) });
  });
  // The Kafka connector (docs/kafka.md): position, end, lag, counts, why it stopped.
  app.get('/$/kafka', async () => ({ connectors: ctx.kafka ? [ctx.kafka.status()] : [] }));
  app.get('/$/metrics', async (_request, reply) => {
    reply.type(ctx.metrics.registry.contentType);
    return ctx.metrics.registry.metrics();
  });
}
