/** The Kafka compression codecs by name, as the OpenTelemetry Collector's exporter spells them (`producer.compression`). */
export const compressionNames = ["none", "gzip", "snappy", "lz4", "zstd"] as const;
export type CompressionName = (typeof compressionNames)[number];
