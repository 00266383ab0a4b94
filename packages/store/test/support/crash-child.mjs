// Crash-test child (see ../crash.test.ts). Opens a durable store and loads upload after upload of
// generated N-Triples, printing `ACK k` once upload k is acknowledged; the parent kills it with
// SIGKILL at some moment and checks what survived.
//
//   node crash-child.mjs <dir> <uploads> <triplesPerUpload> <checkpointBytes|0> <load|checkpoint|transactions>
//
// Upload k holds `<http://ex/u{k}/s{i}> <http://ex/u{k}/p> "{i}" .` for i < triplesPerUpload.
// `load`: each upload is one store.load() of N-Triples text.
// `checkpoint`: as `load`, and after each upload the child prints `CHECKPOINT k`, calls
//   checkpoint(), then prints `CHECKPOINTED k`, so the parent can kill it mid-checkpoint.
// `transactions`: each upload is one store.transaction() adding the quads directly; with small
//   uploads the child spends its time appending and fsyncing, so a kill lands mid-commit.
import { openStore } from '@ianode/store';

const [dir, uploadsArg, triplesArg, checkpointBytesArg, mode] = process.argv.slice(2);
const uploads = Number(uploadsArg);
const triples = Number(triplesArg);
const checkpointBytes = Number(checkpointBytesArg) || undefined;

function upload(k) {
  const lines = [];
  for (let i = 0; i < triples; i++) lines.push(`<http://ex/u${k}/s${i}> <http://ex/u${k}/p> "${i}" .\n`);
  return lines.join('');
}

const say = (line) => process.stdout.write(`${line}\n`);

const store = await openStore({ dir, checkpointBytes, defaultLabel: '*' });
say('OPEN');
for (let k = 0; k < uploads; k++) {
  say(`BEGIN ${k}`);
  if (mode === 'transactions') {
    await store.transaction((tx) => {
      for (let i = 0; i < triples; i++) tx.add({ s: `<http://ex/u${k}/s${i}`, p: `<http://ex/u${k}/p`, o: `"${i}"`, g: '' });
    });
  } else {
    await store.load(upload(k), { format: 'application/n-triples' });
  }
  say(`ACK ${k}`);
  if (mode === 'checkpoint') {
    say(`CHECKPOINT ${k}`);
    await store.checkpoint();
    say(`CHECKPOINTED ${k}`);
  }
}
await store.close();
say('DONE');
