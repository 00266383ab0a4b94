/**
 * `ianode kafka send` / `ianode kafka status` on the command line: what each is given (flags win over
 * $KAFKA_BOOTSTRAP_SERVERS / $IANODE_KAFKA_TOPIC), the content type from the extension, --help, and
 * the mistakes that are usage errors (exit 2, nothing sent). Against a real broker:
 * test/e2e/kafka-cli.e2e.ts. The status command's server part is checked here against a small HTTP
 * server standing in for the graph server's GET /$/kafka.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from './support/run-cli.js';
import { contentTypeFor, describeKafkaError, kafkaStatus, parseBrokers } from '../src/kafka.js';


const ENV = { KAFKA_BOOTSTRAP_SERVERS: 'k1:9092,k2:9093', IANODE_KAFKA_TOPIC: 'rdf' };

describe('ianode kafka send', () => {
  it('the content type comes from the extension, as the upload route tells formats, plus patches and updates', () => {
    expect(
      ['a.ttl', 'a.nt', 'a.nq', 'a.trig', 'a.jsonld', 'a.rdf', 'a.owl', 'a.rp', 'a.rdfp', 'a.ru', 'a.rq', 'DIR/B.TTL'].map(contentTypeFor),
    ).toEqual([
      'text/turtle',
      'application/n-triples',
      'application/n-quads',
      'application/trig',
      'application/ld+json',
      'application/rdf+xml',
      'application/rdf+xml',
      'application/rdf-patch',
      'application/rdf-patch',
      'application/sparql-update',
      'application/sparql-update',
      'text/turtle',
    ]);
    expect(contentTypeFor('a.txt')).toBeUndefined();
    expect(contentTypeFor('noext')).toBeUndefined();
    expect(contentTypeFor('-')).toBeUndefined();
  });

  it('brokers and topic from the environment, flags win; label and content type passed on', async () => {
    expect((await run(['kafka', 'send', 'data.ttl'], ENV)).calls).toEqual([
      ['kafkaSend', 'data.ttl', { brokers: ['k1:9092', 'k2:9093'], topic: 'rdf', contentType: 'text/turtle', label: undefined }],
    ]);
    expect(
      (await run(['kafka', 'send', 'p.rp', '--label', 'employee', '--topic', 'other', '--brokers', '127.0.0.1:1 , [::1]:2'], ENV)).calls,
    ).toEqual([['kafkaSend', 'p.rp', { brokers: ['127.0.0.1:1', '[::1]:2'], topic: 'other', contentType: 'application/rdf-patch', label: 'employee' }]]);
    // --content-type overrides the extension and is what stdin needs.
    expect((await run(['kafka', 'send', 'x.ttl', '--content-type', 'application/n-triples'], ENV)).calls[0]![2]).toMatchObject({ contentType: 'application/n-triples' });
    expect((await run(['kafka', 'send', '-', '--content-type', 'application/sparql-update'], ENV)).calls).toEqual([
      ['kafkaSend', '-', { brokers: ['k1:9092', 'k2:9093'], topic: 'rdf', contentType: 'application/sparql-update', label: undefined }],
    ]);
  });

  it.each([
    { argv: ['kafka', 'send'], env: ENV, says: /ianode kafka send: missing argument/ },
    { argv: ['kafka', 'send', 'a.txt'], env: ENV, says: /cannot tell the content type of a\.txt: give --content-type or use \.ttl .*\.rp \.rdfp \.ru \.rq/ },
    { argv: ['kafka', 'send', '-'], env: ENV, says: /stdin needs --content-type/ },
    { argv: ['kafka', 'send', 'a.ttl'], env: { IANODE_KAFKA_TOPIC: 'rdf' }, says: /needs --brokers or \$KAFKA_BOOTSTRAP_SERVERS/ },
    { argv: ['kafka', 'send', 'a.ttl'], env: { KAFKA_BOOTSTRAP_SERVERS: 'k:1' }, says: /needs --topic or \$IANODE_KAFKA_TOPIC/ },
    { argv: ['kafka', 'send', 'a.ttl', '--brokers', 'k1'], env: ENV, says: /not a Kafka broker address \(host:port\): "k1"/ },
    { argv: ['kafka', 'send', 'a.ttl', '--brokers', 'http://k1:9092'], env: ENV, says: /not a Kafka broker address/ },
    { argv: ['kafka', 'send', 'a.ttl', 'b.ttl'], env: ENV, says: /unexpected argument "b\.ttl"/ },
    { argv: ['kafka', 'send', 'a.ttl', '--lable', 'x'], env: ENV, says: /Unknown option '--lable'/ },
    { argv: ['kafka'], env: ENV, says: /ianode kafka: needs send or status\nusage: ianode kafka send/ },
    { argv: ['kafka', 'publish', 'a.ttl'], env: ENV, says: /no kafka action "publish": send or status/ },
    { argv: ['kafka', 'status'], env: { IANODE_KAFKA_TOPIC: 'rdf' }, says: /needs --brokers or \$KAFKA_BOOTSTRAP_SERVERS \(or --server URL\)/ },
    { argv: ['kafka', 'status'], env: { KAFKA_BOOTSTRAP_SERVERS: 'k:1' }, says: /needs --topic or \$IANODE_KAFKA_TOPIC \(or --server URL\)/ },
    { argv: ['kafka', 'status', '--server', 'localhost:3030'], env: ENV, says: /--server "localhost:3030" is not an http\(s\) URL/ },
    { argv: ['kafka', 'status', 'extra'], env: ENV, says: /unexpected argument "extra"/ },
  ])('ianode $argv: exit 2, the reason and the usage on stderr, nothing sent', async ({ argv, env, says }) => {
    const { code, stdout, stderr, calls } = await run(argv, env);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(says);
    expect(stderr).toContain('usage: ianode kafka');
    expect(calls).toEqual([]);
  });

  it('--help and -h: the usage names every option and the content types, nothing sent', async () => {
    for (const argv of [['kafka', 'send', '--help'], ['kafka', 'send', '-h'], ['help', 'kafka', 'send'], ['kafka', 'send', 'a.bogus', '--brokers', 'x', '-h']]) {
      const { code, stdout, stderr, calls } = await run(argv);
      expect([code, stderr, calls]).toEqual([0, '', []]);
      expect(stdout).toMatch(/^usage: ianode kafka send FILE \[--label L\] \[--content-type T\] \[--topic T\] \[--brokers B\]\n/);
      for (const word of ['--label', '--content-type', '--topic', '--brokers', '$KAFKA_BOOTSTRAP_SERVERS', '$IANODE_KAFKA_TOPIC', '.rp .rdfp', '.ru .rq', 'Security-Label', '- reads stdin']) {
        expect(stdout).toContain(word);
      }
    }
    const top = await run(['--help']);
    expect(top.stdout).toContain('  kafka send FILE [--label L]');
    expect(top.stdout).toContain('  kafka status [--server URL]');
  });
});

describe('ianode kafka status', () => {
  it('topic and brokers from the environment or flags; --server alone is enough; the ID token goes along', async () => {
    expect((await run(['kafka', 'status'], ENV)).calls).toEqual([['kafkaStatus', { brokers: ['k1:9092', 'k2:9093'], topic: 'rdf', server: undefined, token: undefined }]]);
    expect((await run(['kafka', 'status', '--topic', 't2', '--brokers', 'h:1', '--server', 'http://g:3030'], { ...ENV, IDP_ID_TOKEN: 'tok' })).calls).toEqual([
      ['kafkaStatus', { brokers: ['h:1'], topic: 't2', server: 'http://g:3030', token: 'tok' }],
    ]);
    expect((await run(['kafka', 'status', '--server', 'http://g:3030'])).calls).toEqual([['kafkaStatus', { brokers: undefined, topic: undefined, server: 'http://g:3030', token: undefined }]]);
  });

  it('--help and -h', async () => {
    for (const argv of [['kafka', 'status', '--help'], ['kafka', 'status', '-h'], ['help', 'kafka', 'status']]) {
      const { code, stdout, calls } = await run(argv);
      expect([code, calls]).toEqual([0, []]);
      expect(stdout).toMatch(/^usage: ianode kafka status \[--topic T\] \[--brokers B\] \[--server URL\]\n/);
      expect(stdout).toContain('GET /$/kafka');
    }
  });

  describe("the graph server's GET /$/kafka", () => {
    let server: Server;
    let base = '';
    const seen: { url?: string; authorization?: string }[] = [];
    let answer: { status: number; body: string } = { status: 200, body: '' };
    beforeAll(async () => {
      server = createServer((req, res) => {
        seen.push({ url: req.url, authorization: req.headers.authorization });
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const status = async (serverUrl: string, token?: string) => {
      let stdout = '';
      let stderr = '';
      const code = await kafkaStatus({ brokers: undefined, topic: undefined, server: serverUrl, token }, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
      return { code, stdout, stderr };
    };

    it('prints the connectors as the server returns them, from the server root even when given a dataset URL', async () => {
      const body = { connectors: [{ dataset: 'ds', topic: 'rdf', state: 'running', partitions: [{ partition: 0, applied: 4, end: 5, lag: 1 }] }] };
      answer = { status: 200, body: JSON.stringify(body) };
      seen.length = 0;
      const { code, stdout } = await status(`${base}/ds`, 'tok');
      expect(code).toBe(0);
      expect(seen).toEqual([{ url: '/$/kafka', authorization: 'Bearer tok' }]);
      expect(stdout).toBe(`graph server ${base}/$/kafka:\n${JSON.stringify(body, null, 2)}\n`);
    });

    it('a server without it (404): a clear message, exit 0; an error answer or no answer: exit 1 with the reason', async () => {
      answer = { status: 404, body: '{"error":"not found"}' };
      expect(await status(base)).toEqual({ code: 0, stdout: `graph server ${base}/$/kafka: no Kafka status there (404): this server has no Kafka ingestion\n`, stderr: '' });
      answer = { status: 503, body: '{"error":"the access service is unreachable"}' };
      const failed = await status(base);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toMatch(/\/\$\/kafka answered 503: \{"error":"the access service is unreachable"\}/);
      // A port nobody listens on: the one this server had before it was closed.
      const closed = createServer();
      closed.listen(0, '127.0.0.1');
      await once(closed, 'listening');
      const port = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const down = await status(`http://127.0.0.1:${port}`);
      expect(down.code).toBe(1);
      expect(down.stderr).toMatch(new RegExp(`the graph server at http://127\\.0\\.0\\.1:${port}/\\$/kafka did not answer: .*ECONNREFUSED`));
    });
  });

  it("a Kafka client failure in one line: every distinct nested message, outermost first", () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const network = new Error('Connection to 127.0.0.1:1 failed.', { cause: refused });
    const any = () => new AggregateError([network], 'Cannot connect to any broker.');
    expect(describeKafkaError(new AggregateError([any(), any()], 'metadata failed 2 times.'))).toBe(
      'metadata failed 2 times: Cannot connect to any broker: Connection to 127.0.0.1:1 failed: connect ECONNREFUSED 127.0.0.1:1',
    );
    expect(describeKafkaError(new Error('Unknown topic nope.'))).toBe('Unknown topic nope');
    expect(describeKafkaError('odd')).toBe('odd');
  });

  it('parseBrokers: host:port lists, IPv6 in brackets; anything else is refused', () => {
    expect(parseBrokers(' a:1,b.example:65535 ,[::1]:9092,')).toEqual(['a:1', 'b.example:65535', '[::1]:9092']);
    for (const bad of ['', ',', 'a', 'a:', ':1', 'a:b', 'a:1:2', 'kafka://a:1', 'a b:1']) expect(() => parseBrokers(bad)).toThrow();
  });
});
