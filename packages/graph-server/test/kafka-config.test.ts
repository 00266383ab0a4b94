/**
 * The Kafka connector's configuration (`dataset.kafka`, docs/kafka.md) and the writer a CQRS
 * message carries (`Ianode-Writer`): what is accepted, what is refused and how the refusal names
 * the key. The connector itself runs against a real broker in test/e2e/kafka.e2e.ts.
 */
import { describe, expect, it } from 'vitest';
import { configFromEnv, resolveConfig } from '../src/config.js';
import { callerOfWriter, MalformedMessage, writerHeader } from '../src/kafka/apply.js';
import { resolveKafkaConfig } from '../src/kafka/config.js';
import { offsetKey } from '../src/kafka/connector.js';

describe('dataset.kafka', () => {
  it('is off unless given', () => {
    expect(resolveKafkaConfig(undefined)).toBeUndefined();
    expect(resolveConfig({}).dataset.kafka).toBeUndefined();
  });

  it('takes the defaults of docs/kafka.md', () => {
    const config = resolveKafkaConfig({ topic: 'knowledge', brokers: 'k1:9092, k2:9093' })!;
    expect(config).toMatchObject({
      topic: 'knowledge', brokers: ['k1:9092', 'k2:9093'], group: 'JenaFusekiKafka', start: 'earliest', onError: 'stop',
      writes: 'log', readWaitMs: 10_000, startWaitMs: 60_000, fetchMessages: 500, tls: undefined, sasl: undefined,
    });
  });

  it('reads the brokers from KAFKA_BOOTSTRAP_SERVERS when the file has none (configFromEnv, main.ts)', () => {
    const file = { datasets: [{ name: 'a', kafka: { topic: 't' } }, { name: 'b', kafka: { topic: 'u', brokers: 'own:1' } }, { name: 'c' }] };
    const config = resolveConfig(configFromEnv({ KAFKA_BOOTSTRAP_SERVERS: 'kafka:9092' }, file));
    expect(config.datasets.map((dataset) => dataset.kafka?.brokers)).toEqual([['kafka:9092'], ['own:1'], undefined]);
    expect(() => resolveKafkaConfig({ topic: 't' })).toThrow(/KAFKA_BOOTSTRAP_SERVERS/);
    expect(() => resolveConfig(configFromEnv({}, file))).toThrow(/datasets\[0\]\.kafka\.brokers .*KAFKA_BOOTSTRAP_SERVERS/);
  });

  it.each([
    [{ brokers: 'k:1' }, /topic/],
    [{ topic: 'bad topic', brokers: 'k:1' }, /topic/],
    [{ topic: 't', brokers: 'k' }, /host:port/],
    [{ topic: 't', brokers: [] }, /names no broker/],
    [{ topic: 't', brokers: 'k:1', onError: 'skip' }, /onError must be one of stop, dead-letter/],
    [{ topic: 't', brokers: 'k:1', onError: 'dead-letter' }, /deadLetterTopic/],
    [{ topic: 't', brokers: 'k:1', onError: 'dead-letter', deadLetterTopic: 't' }, /must not be the topic itself/],
    [{ topic: 't', brokers: 'k:1', writes: 'both' }, /writes must be one of direct, log/],
    [{ topic: 't', brokers: 'k:1', fetchMessages: 0 }, /fetchMessages/],
    [{ topic: 't', brokers: 'k:1', readWaitMs: -1 }, /readWaitMs/],
    [{ topic: 't', brokers: 'k:1', sasl: { mechanism: 'GSSAPI', username: 'u', password: 'p' } }, /sasl.mechanism/],
    [{ topic: 't', brokers: 'k:1', tls: 'yes' }, /tls/],
    [{ topic: 't', brokers: 'k:1', partitions: 3 }, /dataset\.kafka\.partitions: unknown key "partitions"; did you mean dataset\.kafka\.\w+\? \(dataset\.kafka takes topic, brokers/],
    [{ topic: 't', brokers: 'k:1', tls: { ca: 1 } }, /dataset\.kafka\.tls\.ca must be a PEM file path/],
    ['knowledge', /must be a mapping/],
  ])('refuses %j naming the key', (input, message) => {
    expect(() => resolveKafkaConfig(input)).toThrow(message);
  });

  it('a resolved configuration resolves to itself (the server re-resolves what it is given)', () => {
    const once = resolveConfig({ dataset: { kafka: { topic: 't', brokers: 'k:1', sasl: { mechanism: 'plain', username: 'u', password: 'p' }, tls: true } } });
    const twice = resolveConfig(once as never);
    expect(twice.dataset.kafka).toEqual(once.dataset.kafka);
    expect(once.dataset.kafka!.sasl!.mechanism).toBe('PLAIN');
  });

  it('keeps the applied offset under one store key per topic partition', () => {
    expect(offsetKey('knowledge')).toBe('kafka:knowledge:0');
  });
});

describe('the writer of a CQRS message', () => {
  const grant = { attributes: ['clearance=S', 'employee'], hierarchies: [['clearance', ['O', 'OS', 'S', 'TS']]] as [string, string[]][] };

  it('is rebuilt with the visibility of its grant', () => {
    const header = writerHeader({ id: 'iss|sub', user: 'ann', attributes: grant.attributes, may: () => true, visible: () => true, grant });
    const caller = callerOfWriter(header, true);
    expect(caller.id).toBe('iss|sub');
    expect(caller.visible!('clearance=OS')).toBe(true); // the hierarchy came along
    expect(caller.visible!('clearance=TS')).toBe(false);
    expect(caller.visible!('employee && clearance=S')).toBe(true);
    expect(caller.visible!('contractor')).toBe(false);
  });

  it('without a grant is refused by a secure replica, and writes with every right in open mode', () => {
    const header = JSON.stringify({ id: 'anonymous', user: 'anonymous', grant: null });
    expect(() => callerOfWriter(header, true)).toThrow(MalformedMessage);
    expect(callerOfWriter(header, false).visible).toBeUndefined();
  });

  it.each(['not json', '{}', JSON.stringify({ id: 'a', user: 'b', grant: { attributes: [1], hierarchies: [] } })])('refuses a malformed header %s', (header) => {
    expect(() => callerOfWriter(header, true)).toThrow(MalformedMessage);
  });
});
