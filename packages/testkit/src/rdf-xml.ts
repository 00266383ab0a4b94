/** Reading RDF/XML back in tests: an independent parser (rdfxml-streaming-parser) checks what our
 * writers produce. */
import { RdfXmlParser } from 'rdfxml-streaming-parser';
import type { Quad } from '@ianode/rdf';

/** Every quad of an RDF/XML document; rejects on a syntax error. */
export async function parseRdfXml(text: string): Promise<Quad[]> {
  const parser = new RdfXmlParser();
  const out: Quad[] = [];
  await new Promise<void>((resolve, reject) => {
    parser.on('data', (q: Quad) => out.push(q));
    parser.on('error', reject);
    parser.on('end', resolve);
    parser.write(text);
    parser.end();
  });
  return out;
}
