/**
 * The protobufjs message types built from the project-owned descriptor.
 *
 * Built once per process: `Root.fromJSON` generates the encoders and decoders.
 */
import protobuf from "protobufjs";
import { otlpTraceDescriptor } from "./otlp-trace-descriptor.js";

const root = protobuf.Root.fromJSON(otlpTraceDescriptor);

export const exportTraceServiceRequestType = root.lookupType(
  "opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest",
);
export const exportTraceServiceResponseType = root.lookupType(
  "opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse",
);
export const exportLogsServiceRequestType = root.lookupType(
  "opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest",
);
export const exportLogsServiceResponseType = root.lookupType(
  "opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse",
);
export const rpcStatusType = root.lookupType("google.rpc.Status");
