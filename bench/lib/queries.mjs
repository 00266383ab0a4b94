/**
 * The query mix of bench/query.mjs over the BSBM-like data of bsbm.mjs: the eight shapes of
 * docs/ARCHITECTURE.md's comparison plus DESCRIBE, CONSTRUCT, UNION and a sub-query.
 *
 * Constants (a product, a country, a product type, numeric ranges) are drawn with a seeded random
 * from the generator's own model (bsbmScale + the IRI schemes of bsbm-model.mjs), so the same
 * (triples, seed) always gives the same query texts, for every engine, without reading the file.
 * Products are drawn from the first 90% of the estimated count, which the file always holds.
 */
import { bsbmScale } from './bsbm.mjs';
import { PRODUCTS_PER_PRODUCER } from './bsbm-model.mjs';
import { createRandom } from './random.mjs';
import { VOC, INST, RDF, RDFS, REV, COUNTRIES, COUNTRY_CODES } from './vocabulary.mjs';

const PREFIXES = `PREFIX bsbm: <${VOC}>
PREFIX inst: <${INST}>
PREFIX rdf: <${RDF}>
PREFIX rdfs: <${RDFS}>
PREFIX rev: <${REV}>
PREFIX country: <${COUNTRIES}>
`;

/**
 * @typedef {object} BenchQuery
 * @property {string} id short name, also accepted by --queries (as is its number)
 * @property {number} n 1-based position in the mix
 * @property {string} title what the query stands for, for the report
 * @property {string} text the SPARQL text (with prefixes)
 * @property {boolean} [ordered] solution order is part of the answer (compared in order)
 */

/**
 * @param {{ triples: number, seed: number, visible?: (subject: string) => boolean }} options
 *   `visible`: whether the ABAC caller sees the triples of a subject (`<iri>`); the lookup and
 *   DESCRIBE product is drawn among those, so ABAC runs answer them with rows too.
 * @returns {BenchQuery[]}
 */
export function bsbmQueries({ triples, seed, visible = () => true }) {
  const scale = bsbmScale(triples);
  // A stream of its own (seed mixed with a constant), so the constants do not follow the data's
  // first random numbers.
  const rnd = createRandom((seed ^ 0x9e3779b9) >>> 0);
  // The product of the lookup and DESCRIBE: drawn until the ABAC caller can see it (`visible`).
  const productIri = (/** @type {number} */ index) => {
    const producerOf = Math.floor(index / PRODUCTS_PER_PRODUCER) % scale.producers;
    return `<${INST}dataFromProducer${producerOf + 1}/Product${index + 1}>`;
  };
  // Redraws come from a stream of their own, so the other constants stay what they were.
  const redraw = createRandom((seed ^ 0x5bd1e995) >>> 0);
  let productIndex = rnd.int(0, Math.max(0, Math.floor(scale.products * 0.9) - 1));
  for (let tries = 0; tries < 100 && !visible(productIri(productIndex)); tries++) {
    productIndex = redraw.int(0, Math.max(0, Math.floor(scale.products * 0.9) - 1));
  }
  const product = productIri(productIndex);
  const country = `country:${COUNTRY_CODES[rnd.int(0, COUNTRY_CODES.length - 1)]}`;
  // Children of the root (ProductType2..7): each has subtypes down to the leaves products carry.
  const type = `inst:ProductType${rnd.int(2, 7)}`;
  const numLow = rnd.int(100, 1400);
  const numHigh = numLow + 500;
  const smallNumeric = rnd.int(150, 250);
  const minRating = rnd.int(8, 9);
  // Drawn after the original constants, so those (and their queries' answers) stay what they were.
  // Offer prices are 4.00–12000.00 (xsd:decimal, two digits), validFrom 2008-01-01 + 0–1095 days.
  const priceLow = (rnd.int(50_000, 800_000) / 100).toFixed(2);
  const priceHigh = (Number(priceLow) + 250).toFixed(2);
  const dayMs = 86_400_000;
  const fromLow = Date.UTC(2008, 0, 1) + rnd.int(0, 500) * dayMs;
  const iso = (/** @type {number} */ ms) => new Date(ms).toISOString().slice(0, 19);
  const validLow = iso(fromLow);
  const validHigh = iso(fromLow + 20 * dayMs);

  /** @type {Omit<BenchQuery, 'n'>[]} */
  const mix = [
    {
      id: 'lookup',
      title: 'lookup by subject',
      text: `SELECT ?p ?o WHERE { ${product} ?p ?o }`,
    },
    {
      id: 'star',
      title: '4-pattern star join',
      text: `SELECT ?product ?label ?value ?producer WHERE {
  ?product rdf:type bsbm:Product ;
           rdfs:label ?label ;
           bsbm:productPropertyNumeric1 ?value ;
           bsbm:producer ?producer .
}`,
    },
    {
      id: 'chain',
      title: '5-pattern chain join',
      text: `SELECT ?reviewer ?review ?product ?producer ?producerLabel WHERE {
  ?reviewer bsbm:country ${country} .
  ?review rev:reviewer ?reviewer .
  ?review bsbm:reviewFor ?product .
  ?product bsbm:producer ?producer .
  ?producer rdfs:label ?producerLabel .
}`,
    },
    {
      id: 'filter',
      title: 'numeric range FILTER',
      text: `SELECT ?product ?label ?value WHERE {
  ?product bsbm:productPropertyNumeric1 ?value ;
           rdfs:label ?label .
  FILTER (?value >= ${numLow} && ?value <= ${numHigh})
}`,
    },
    {
      id: 'optional',
      title: 'OPTIONAL',
      text: `SELECT ?product ?label ?review ?rating WHERE {
  ?product rdf:type bsbm:Product ;
           rdfs:label ?label .
  OPTIONAL { ?review bsbm:reviewFor ?product ; bsbm:rating1 ?rating . }
}`,
    },
    {
      id: 'top10',
      title: 'ORDER BY + LIMIT 10',
      ordered: true,
      text: `SELECT ?offer ?price ?vendor WHERE {
  ?offer bsbm:price ?price ;
         bsbm:vendor ?vendor .
}
ORDER BY DESC(?price) ?offer
LIMIT 10`,
    },
    {
      id: 'group',
      title: 'GROUP BY + COUNT',
      text: `SELECT ?vendor (COUNT(?offer) AS ?offers) WHERE {
  ?offer bsbm:vendor ?vendor .
}
GROUP BY ?vendor`,
    },
    {
      id: 'path',
      title: 'rdfs:subClassOf* path',
      text: `SELECT ?product ?type WHERE {
  ?type rdfs:subClassOf* ${type} .
  ?product rdf:type ?type .
}`,
    },
    {
      id: 'describe',
      title: 'DESCRIBE one product',
      text: `DESCRIBE ${product}`,
    },
    {
      id: 'construct',
      title: 'CONSTRUCT',
      text: `CONSTRUCT {
  ?review bsbm:ratedProduct ?product ;
          bsbm:score ?rating .
} WHERE {
  ?review bsbm:reviewFor ?product ;
          bsbm:rating1 ?rating .
  FILTER (?rating >= ${minRating})
}`,
    },
    {
      id: 'union',
      title: 'UNION',
      text: `SELECT ?product ?x WHERE {
  ?product bsbm:productPropertyNumeric2 ?n .
  FILTER (?n < ${smallNumeric})
  { ?x bsbm:product ?product } UNION { ?x bsbm:reviewFor ?product }
}`,
    },
    {
      id: 'subquery',
      title: 'sub-query (top vendors joined back)',
      text: `SELECT ?vendor ?offers ?country ?offer ?price WHERE {
  {
    SELECT ?vendor (COUNT(?o) AS ?offers) WHERE { ?o bsbm:vendor ?vendor . }
    GROUP BY ?vendor
    ORDER BY DESC(?offers) ?vendor
    LIMIT 10
  }
  ?vendor bsbm:country ?country .
  ?offer bsbm:vendor ?vendor ;
         bsbm:price ?price .
}`,
    },
    {
      id: 'dfilter',
      title: 'xsd:decimal range FILTER',
      text: `SELECT ?offer ?price WHERE {
  ?offer bsbm:price ?price .
  FILTER (?price >= ${priceLow} && ?price < ${priceHigh})
}`,
    },
    {
      id: 'dtop',
      title: 'ORDER BY xsd:decimal (asc) + LIMIT 20',
      ordered: true,
      text: `SELECT ?offer ?price WHERE {
  ?offer bsbm:price ?price .
}
ORDER BY ?price ?offer
LIMIT 20`,
    },
    {
      id: 'dgroup',
      title: 'GROUP BY + MIN/MAX/SUM of xsd:decimal',
      text: `SELECT ?vendor (MIN(?price) AS ?min) (MAX(?price) AS ?max) (SUM(?price) AS ?sum) WHERE {
  ?offer bsbm:vendor ?vendor ;
         bsbm:price ?price .
}
GROUP BY ?vendor`,
    },
    {
      id: 'tfilter',
      title: 'xsd:dateTime range FILTER',
      text: `PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
SELECT ?offer ?from WHERE {
  ?offer bsbm:validFrom ?from .
  FILTER (?from >= "${validLow}"^^xsd:dateTime && ?from < "${validHigh}"^^xsd:dateTime)
}`,
    },
  ];
  return mix.map((q, i) => ({ ...q, n: i + 1, text: PREFIXES + q.text + '\n' }));
}

/**
 * The queries named by `--queries` ("all", or ids and numbers: "1,2,path").
 * @param {BenchQuery[]} all
 * @param {string} selection
 * @returns {BenchQuery[]}
 */
export function selectQueries(all, selection) {
  if (selection === 'all' || selection === '') return all;
  const wanted = selection.split(',').map((s) => s.trim()).filter(Boolean);
  return wanted.map((w) => {
    const q = all.find((x) => x.id === w || String(x.n) === w);
    if (!q) throw new TypeError(`unknown query ${w} (known: ${all.map((x) => `${x.n}=${x.id}`).join(', ')})`);
    return q;
  });
}
