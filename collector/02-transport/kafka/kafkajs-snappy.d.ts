// kafkajs-snappy ships no types: a factory of kafkajs's codec shape.
declare module "kafkajs-snappy" {
  const snappyCodec: () => {
    compress(encoder: { buffer: Buffer }): Promise<Buffer>;
    decompress(buffer: Buffer): Promise<Buffer>;
  };
  export default snappyCodec;
}
