// kafkajs's table of Kafka protocol error codes (src/protocol/error.js) has no types of its own: the fields read here.
declare module "kafkajs/src/protocol/error.js" {
  export const errorCodes: readonly { type: string; code: number; retriable: boolean; message: string }[];
}
