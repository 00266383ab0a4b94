/**
 * The BSBM-like data model: one function per entity kind, each appending N-Triples lines to `out`.
 * Every emitted triple is distinct (one value per subject and predicate, except rdf:type and
 * productFeature, whose values are distinct per subject), so a store's quad count must equal the
 * number of lines.
 *
 * Shape (after the Berlin SPARQL Benchmark data generator, simplified):
 * product types (a tree, rdfs:subClassOf), product features, producers, vendors, rating sites'
 * reviewers (foaf:Person), then products; each product is followed by its offers and reviews.
 */
import {
  VOC, INST, RDF, RDFS, XSD, DC, REV, FOAF, COUNTRIES, COUNTRY_CODES, WORDS,
} from './vocabulary.mjs';

/** Products a producer makes (used to assign products to producers). */
export const PRODUCTS_PER_PRODUCER = 15;

const TYPE = `<${RDF}type>`;
const LABEL = `<${RDFS}label>`;
const COMMENT = `<${RDFS}comment>`;
const PUBLISHER = `<${DC}publisher>`;
const DATE = `<${DC}date>`;
const DAY_MS = 86_400_000;
const BASE_MS = Date.UTC(2008, 0, 1);

/** @param {string} iri */
const iri = (iri) => `<${iri}>`;
/** @param {string} v @param {string} dt */
const typed = (v, dt) => `"${v}"^^<${XSD}${dt}>`;
/** Plain and language-tagged literals: lexical forms are [a-z ] only, so no escaping. */
const plain = (/** @type {string} */ v) => `"${v}"`;
const en = (/** @type {string} */ v) => `"${v}"@en`;

/**
 * @typedef {object} Scale
 * @property {number} products estimated product count (sizes the pools; generation goes on past it)
 * @property {number} typeDepth levels of the product type tree
 * @property {number} features
 * @property {number} producers
 * @property {number} vendors
 * @property {number} ratingSites
 * @property {number} persons
 */

/**
 * @param {import('./random.mjs').Random} rnd
 * @param {Scale} scale
 */
export function createModel(rnd, scale) {
  /** @param {number} n */
  const words = (n) => {
    let s = WORDS[rnd.skewed(WORDS.length)];
    for (let i = 1; i < n; i++) s += ' ' + WORDS[rnd.skewed(WORDS.length)];
    return s;
  };
  const dayMs = () => BASE_MS + rnd.int(0, 3 * 365) * DAY_MS;
  /** @param {number} ms */
  const date = (ms) => typed(new Date(ms).toISOString().slice(0, 10), 'date');
  /** @param {number} ms */
  const dateTime = (ms) => typed(new Date(ms).toISOString().slice(0, 19), 'dateTime');
  const integer = (/** @type {number} */ n) => typed(String(n), 'integer');

  const typeUri = (/** @type {number} */ i) => iri(`${INST}ProductType${i + 1}`);
  const featureUri = (/** @type {number} */ i) => iri(`${INST}ProductFeature${i + 1}`);
  const producerUri = (/** @type {number} */ i) => iri(`${INST}dataFromProducer${i + 1}/Producer${i + 1}`);
  const vendorUri = (/** @type {number} */ i) => iri(`${INST}dataFromVendor${i + 1}/Vendor${i + 1}`);
  const siteUri = (/** @type {number} */ i) => iri(`${INST}dataFromRatingSite${i + 1}/RatingSite${i + 1}`);
  const personSite = (/** @type {number} */ i) => i % scale.ratingSites;
  const personUri = (/** @type {number} */ i) =>
    iri(`${INST}dataFromRatingSite${personSite(i) + 1}/Reviewer${i + 1}`);

  /** Leaf product types with their feature pools, filled by productTypes(). */
  /** @type {{ uri: string, poolStart: number }[]} */
  const leaves = [];
  const POOL = Math.min(40, scale.features);
  let offerCount = 0;
  let reviewCount = 0;

  /**
   * @param {string[]} out
   * @param {string} s
   * @param {string} label
   * @param {string} publisher
   */
  function common(out, s, label, publisher) {
    out.push(`${s} ${LABEL} ${plain(label)} .\n`);
    out.push(`${s} ${COMMENT} ${plain(words(rnd.int(10, 30)))} .\n`);
    out.push(`${s} ${PUBLISHER} ${publisher} .\n`);
    out.push(`${s} ${DATE} ${date(dayMs())} .\n`);
  }

  /** The type tree: one root, 6 children, then 4 per node, down to typeDepth levels. */
  function* productTypes(/** @type {string[]} */ out) {
    /** @type {{ id: number, parent: number }[]} */
    let level = [{ id: 0, parent: -1 }];
    let next = 1;
    for (let depth = 1; depth <= scale.typeDepth; depth++) {
      /** @type {{ id: number, parent: number }[]} */
      const below = [];
      for (const { id, parent } of level) {
        const s = typeUri(id);
        out.push(`${s} ${TYPE} <${VOC}ProductType> .\n`);
        if (parent >= 0) out.push(`${s} <${RDFS}subClassOf> ${typeUri(parent)} .\n`);
        common(out, s, words(2), iri(`${INST}StandardizationInstitution1`));
        if (depth === scale.typeDepth) leaves.push({ uri: s, poolStart: rnd.int(0, scale.features - 1) });
        else for (let k = depth === 1 ? 6 : 4; k > 0; k--) below.push({ id: next++, parent: id });
        yield;
      }
      level = below;
    }
  }

  function* features(/** @type {string[]} */ out) {
    for (let i = 0; i < scale.features; i++) {
      const s = featureUri(i);
      out.push(`${s} ${TYPE} <${VOC}ProductFeature> .\n`);
      common(out, s, words(2), iri(`${INST}StandardizationInstitution1`));
      yield;
    }
  }

  /**
   * Producers and vendors share a shape.
   * @param {string[]} out
   * @param {number} count
   * @param {(i: number) => string} uri
   * @param {string} cls
   */
  function* organisations(out, count, uri, cls) {
    for (let i = 0; i < count; i++) {
      const s = uri(i);
      out.push(`${s} ${TYPE} <${VOC}${cls}> .\n`);
      out.push(`${s} <${FOAF}homepage> <http://www.${cls.toLowerCase()}${i + 1}.com/> .\n`);
      out.push(`${s} <${VOC}country> <${COUNTRIES}${COUNTRY_CODES[rnd.int(0, COUNTRY_CODES.length - 1)]}> .\n`);
      common(out, s, words(2), s);
      yield;
    }
  }

  function* persons(/** @type {string[]} */ out) {
    for (let i = 0; i < scale.persons; i++) {
      const s = personUri(i);
      out.push(`${s} ${TYPE} <${FOAF}Person> .\n`);
      out.push(`${s} <${FOAF}name> ${plain(words(2))} .\n`);
      let sha = '';
      for (let k = 0; k < 5; k++) sha += rnd.int(0, 0xffffffff).toString(16).padStart(8, '0');
      out.push(`${s} <${FOAF}mbox_sha1sum> ${plain(sha)} .\n`);
      out.push(`${s} <${VOC}country> <${COUNTRIES}${COUNTRY_CODES[rnd.int(0, COUNTRY_CODES.length - 1)]}> .\n`);
      out.push(`${s} ${PUBLISHER} ${siteUri(personSite(i))} .\n`);
      out.push(`${s} ${DATE} ${date(dayMs())} .\n`);
      yield;
    }
  }

  /**
   * @param {string[]} out
   * @param {number} i product index (may exceed scale.products: producers then wrap around)
   */
  function product(out, i) {
    const producer = Math.floor(i / PRODUCTS_PER_PRODUCER) % scale.producers;
    const s = iri(`${INST}dataFromProducer${producer + 1}/Product${i + 1}`);
    const leaf = leaves[rnd.int(0, leaves.length - 1)];
    out.push(`${s} ${TYPE} <${VOC}Product> .\n`);
    out.push(`${s} ${TYPE} ${leaf.uri} .\n`);
    common(out, s, words(3), producerUri(producer));
    out.push(`${s} <${VOC}producer> ${producerUri(producer)} .\n`);
    const picked = new Set();
    const want = Math.min(rnd.int(5, 15), POOL);
    while (picked.size < want) picked.add((leaf.poolStart + rnd.int(0, POOL - 1)) % scale.features);
    for (const f of picked) out.push(`${s} <${VOC}productFeature> ${featureUri(f)} .\n`);
    for (let k = 1; k <= 5; k++) {
      if (k > 3 && !rnd.chance(0.5)) continue;
      out.push(`${s} <${VOC}productPropertyNumeric${k}> ${integer(rnd.int(1, 2000))} .\n`);
    }
    for (let k = 1; k <= 5; k++) {
      if (k > 3 && !rnd.chance(0.5)) continue;
      out.push(`${s} <${VOC}productPropertyTextual${k}> ${plain(words(rnd.int(3, 12)))} .\n`);
    }
    const basePrice = rnd.int(500, 1_000_000);
    for (let n = rnd.int(10, 30); n > 0; n--) offer(out, s, basePrice);
    for (let n = rnd.int(5, 15); n > 0; n--) review(out, s);
  }

  /**
   * @param {string[]} out
   * @param {string} product
   * @param {number} basePrice in cents
   */
  function offer(out, product, basePrice) {
    const vendor = rnd.int(0, scale.vendors - 1);
    const n = ++offerCount;
    const s = iri(`${INST}dataFromVendor${vendor + 1}/Offer${n}`);
    const from = dayMs() + rnd.int(0, 86_399) * 1000;
    const cents = Math.round(basePrice * (0.8 + 0.4 * rnd.next()));
    out.push(`${s} ${TYPE} <${VOC}Offer> .\n`);
    out.push(`${s} <${VOC}product> ${product} .\n`);
    out.push(`${s} <${VOC}vendor> ${vendorUri(vendor)} .\n`);
    out.push(`${s} <${VOC}price> ${typed((cents / 100).toFixed(2), 'decimal')} .\n`);
    out.push(`${s} <${VOC}validFrom> ${dateTime(from)} .\n`);
    out.push(`${s} <${VOC}validTo> ${dateTime(from + rnd.int(10, 90) * DAY_MS)} .\n`);
    out.push(`${s} <${VOC}deliveryDays> ${integer(rnd.int(1, 21))} .\n`);
    out.push(`${s} <${VOC}offerWebpage> <http://www.vendor${vendor + 1}.com/offers/Offer${n}/> .\n`);
    out.push(`${s} ${PUBLISHER} ${vendorUri(vendor)} .\n`);
    out.push(`${s} ${DATE} ${date(from)} .\n`);
  }

  /**
   * @param {string[]} out
   * @param {string} product
   */
  function review(out, product) {
    const person = rnd.int(0, scale.persons - 1);
    const site = personSite(person);
    const s = iri(`${INST}dataFromRatingSite${site + 1}/Review${++reviewCount}`);
    const when = dayMs();
    out.push(`${s} ${TYPE} <${VOC}Review> .\n`);
    out.push(`${s} <${VOC}reviewFor> ${product} .\n`);
    out.push(`${s} <${REV}reviewer> ${personUri(person)} .\n`);
    out.push(`${s} <${VOC}reviewDate> ${dateTime(when + rnd.int(0, 86_399) * 1000)} .\n`);
    out.push(`${s} <${DC}title> ${en(words(rnd.int(3, 8)))} .\n`);
    out.push(`${s} <${REV}text> ${en(words(rnd.int(30, 80)))} .\n`);
    for (let k = 1; k <= 4; k++) {
      if (rnd.chance(0.7)) out.push(`${s} <${VOC}rating${k}> ${integer(rnd.int(1, 10))} .\n`);
    }
    out.push(`${s} ${PUBLISHER} ${siteUri(site)} .\n`);
    out.push(`${s} ${DATE} ${date(when)} .\n`);
  }

  /**
   * All entities in order; each step appends one entity's lines to `out`. Never ends: products go
   * on past scale.products, so a caller can always stop at an exact triple count.
   * @param {string[]} out
   */
  function* steps(out) {
    yield* productTypes(out);
    yield* features(out);
    yield* organisations(out, scale.producers, producerUri, 'Producer');
    yield* organisations(out, scale.vendors, vendorUri, 'Vendor');
    yield* persons(out);
    for (let i = 0; ; i++) {
      product(out, i);
      yield;
    }
  }

  return { steps };
}
