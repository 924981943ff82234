/**
 * The Kafka compression codecs an evaluator reads and a ragscope producer can
 * write: the four the OpenTelemetry Collector's Kafka exporter offers
 * (`producer.compression`: gzip, snappy, lz4, zstd; interop.md §4).
 *
 * kafkajs builds in gzip only and looks the others up in its
 * `CompressionCodecs` registry (kafkajs docs, "Producing Messages" →
 * "Compression"); without them it fails the whole fetch with "ZSTD
 * compression not implemented" and the consumer stops. The codecs come from
 * packages that install without downloading anything at install time:
 * - snappy: `kafkajs-snappy` (kafkajs's own codec; pure JavaScript, snappyjs),
 *   reads both raw snappy (franz-go, the Collector) and the xerial framing of
 *   the Java client;
 * - lz4: `lz4-napi` (lz4_flex, prebuilt per platform as npm packages), LZ4
 *   frame format as Kafka specifies it (KIP-57);
 * - zstd: `@hpcc-js/wasm-zstd` (the reference zstd library compiled to
 *   WebAssembly, shipped in the package); frames with or without a content
 *   size.
 *
 * A batch that does not decompress fails with the codec named, rather than
 * the library's bare message. kafkajs decodes a whole fetch response before it
 * hands out any batch, so such a failure cannot be turned into a dead letter
 * by position (collector/02-transport/kafka/README.md, "Known limits").
 */
import kafkajs, { type CompressionTypes as CompressionType } from "kafkajs";
import snappyCodec from "kafkajs-snappy";
import { compressFrame, decompressFrame } from "lz4-napi";
import { Zstd } from "@hpcc-js/wasm-zstd";

import type { CompressionName } from "./compression-names.js";

// kafkajs is CommonJS; Node's named-export detection misses the codec registry, so it is read from the default export.
const { CompressionCodecs, CompressionTypes } = kafkajs;

export type { CompressionName };

export function compressionOf(name: CompressionName): CompressionType {
  switch (name) {
    case "none":
      return CompressionTypes.None;
    case "gzip":
      return CompressionTypes.GZIP;
    case "snappy":
      return CompressionTypes.Snappy;
    case "lz4":
      return CompressionTypes.LZ4;
    case "zstd":
      return CompressionTypes.ZSTD;
  }
}

/** What kafkajs hands a codec: an encoder to compress, the compressed records to decompress. */
export interface KafkaCodec {
  compress(encoder: { buffer: Buffer }): Promise<Buffer>;
  decompress(buffer: Buffer): Promise<Buffer>;
}

let zstdInstance: Promise<Zstd> | null = null;
const loadZstd = () => (zstdInstance ??= Zstd.load());

const zstdCodec = (): KafkaCodec => ({
  async compress(encoder) {
    return Buffer.from((await loadZstd()).compress(encoder.buffer));
  },
  async decompress(buffer) {
    return Buffer.from((await loadZstd()).decompress(buffer));
  },
});

const lz4Codec = (): KafkaCodec => ({
  compress: (encoder) => compressFrame(encoder.buffer),
  decompress: (buffer) => decompressFrame(buffer),
});

/** Names the codec in a decompression failure: the fix (a codec, a corrupt segment) depends on it. */
function explained(name: string, codec: KafkaCodec): KafkaCodec {
  return {
    compress: (encoder) => codec.compress(encoder),
    async decompress(buffer) {
      try {
        return await codec.decompress(buffer);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(`a ${name}-compressed Kafka record batch (${buffer.length} bytes) does not decompress: ${reason}`);
      }
    },
  };
}

let registered = false;

/** Adds snappy, lz4 and zstd to kafkajs's codec registry (once per process; gzip is built in). */
export function registerCompressionCodecs(): void {
  if (registered) return;
  registered = true;
  const codecs = CompressionCodecs as unknown as Record<number, () => KafkaCodec>;
  const snappy = snappyCodec() as KafkaCodec;
  const lz4 = lz4Codec();
  const zstd = zstdCodec();
  codecs[CompressionTypes.Snappy] = () => explained("snappy", snappy);
  codecs[CompressionTypes.LZ4] = () => explained("lz4", lz4);
  codecs[CompressionTypes.ZSTD] = () => explained("zstd", zstd);
}
