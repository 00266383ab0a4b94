#!/usr/bin/env node
// `npm start` will bring the whole node up (identity provider, access service and graph server in
// secure mode, seeded demo) once the graph-server issue lands. Until then it says so plainly.
console.error(
  [
    'ianode: `npm start` is coming — the graph server, access service and identity provider are not built yet.',
    'What exists today: the ABAC label language (@ianode/abac), RDF parsing/serialising (@ianode/rdf)',
    'and the durable labelled quad store (@ianode/store). Try:',
    '  npm test            # unit, contract and crash-safety tests',
    '  npm run test:w3c    # W3C RDF 1.1 conformance',
    '  npm run bench:load -- --triples 1000000',
  ].join('\n'),
);
process.exitCode = 1;
