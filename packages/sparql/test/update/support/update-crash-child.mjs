// Crash-test child (see ../crash.test.ts): opens the durable store in <dir>, prints `UPDATE`, runs
// one large SPARQL update (every <http://ex/p> triple becomes a <http://ex/q> triple) as one store
// transaction the way the graph server does, and prints `ACK` once it is committed. The parent
// kills it with SIGKILL at some moment.
import { openStore } from '@ianode/store';
import { executeUpdate } from '@ianode/sparql';

const [dir] = process.argv.slice(2);
const store = await openStore({ dir, defaultLabel: '*' });
const say = (line) => process.stdout.write(`${line}\n`);
say('UPDATE');
await store.transaction(async (tx) => {
  const view = store.snapshot().view(() => true);
  await executeUpdate(view, 'DELETE { ?s <http://ex/p> ?o } INSERT { ?s <http://ex/q> ?o } WHERE { ?s <http://ex/p> ?o }', {
    applyOps(ops) {
      for (const op of ops) {
        if (op.type === 'add') tx.add(op.quad);
        else tx.delete(op.quad);
      }
    },
  });
});
say('ACK');
await store.close();
say('DONE');
