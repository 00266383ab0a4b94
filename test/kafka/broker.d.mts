/**
 * Types of broker.mjs (the Kafka test harness, plain JavaScript so that the benches in bench/ can
 * start a broker too; the TypeScript e2e tests import it with these types). Keep in step with it.
 */

export declare const KAFKA_VERSION: string;

export interface KafkaCluster {
  /** "127.0.0.1:p1,127.0.0.1:p2,..." */
  bootstrap: string;
  brokers: { id: number; port: number }[];
  /** SIGKILL one node (broker and controller). */
  kill(id: number): Promise<void>;
  /** Restart a killed node with its data. */
  start(id: number): Promise<void>;
  createTopic(name: string, opts?: { partitions?: number; replicationFactor?: number }): Promise<void>;
  /** Kills every process and removes the temp folder. */
  stop(): Promise<void>;
}

export interface StartKafkaOptions {
  brokers?: 1 | 3;
  /** Parent of the temp folder (default the OS temp folder). */
  dir?: string;
  /** How long one node may take to answer (default 90 s; the JVMs share 2 cores with other tests). */
  timeoutMs?: number;
}

/** Where install.sh puts the jars. */
export declare function kafkaHome(): string;

/** Runs install.sh unless its marker says the jars are there. */
export declare function ensureKafkaInstalled(): string;

export declare function startKafka(options?: StartKafkaOptions): Promise<KafkaCluster>;
