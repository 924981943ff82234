/**
 * The project-owned protobufjs JSON descriptor for OTLP traces.
 *
 * No npm package ships the OTLP `.proto` files, and `@opentelemetry/otlp-transformer`
 * has no request decoder (shared/reference/interop.md §6), so the collector owns
 * the schema. Field numbers are those of opentelemetry-proto v1.x: they are stable
 * on the wire forever, only names may change. Field names are lowerCamelCase, the
 * names OTLP/JSON uses and the names protobufjs gives to decoded messages.
 *
 * Left out on purpose (decoded as unknown fields and dropped):
 * - `Resource.entity_refs` (3), still in development;
 * - `KeyValue.key_strindex` (3) and `AnyValue.string_value_strindex` (8), used
 *   only by the profiles signal.
 *
 * The logs messages (ExportLogsServiceRequest and its answer, down to LogRecord) share this schema: a log record's
 * attributes and body are the same common.v1 AnyValues and KeyValues, and spans' events can arrive as log records
 * (log-event-record.ts), so one root keeps the two signals' common types one definition.
 *
 * `google.rpc.Status` is the body of every 4xx/5xx OTLP/HTTP answer (§5). Its
 * `details` are `google.protobuf.Any`, declared here rather than loaded from
 * protobufjs's bundled well-known types so this file is the whole schema.
 */
import type { INamespace } from "protobufjs";

export const otlpTraceDescriptor: INamespace = {
  nested: {
    opentelemetry: {
      nested: {
        proto: {
          nested: {
            collector: {
              nested: {
                trace: {
                  nested: {
                    v1: {
                      nested: {
                        ExportTraceServiceRequest: {
                          fields: {
                            resourceSpans: {
                              rule: "repeated",
                              type: "opentelemetry.proto.trace.v1.ResourceSpans",
                              id: 1,
                            },
                          },
                        },
                        ExportTraceServiceResponse: {
                          fields: {
                            partialSuccess: { type: "ExportTracePartialSuccess", id: 1 },
                          },
                        },
                        ExportTracePartialSuccess: {
                          fields: {
                            rejectedSpans: { type: "int64", id: 1 },
                            errorMessage: { type: "string", id: 2 },
                          },
                        },
                      },
                    },
                  },
                },
                logs: {
                  nested: {
                    v1: {
                      nested: {
                        ExportLogsServiceRequest: {
                          fields: {
                            resourceLogs: {
                              rule: "repeated",
                              type: "opentelemetry.proto.logs.v1.ResourceLogs",
                              id: 1,
                            },
                          },
                        },
                        ExportLogsServiceResponse: {
                          fields: {
                            partialSuccess: { type: "ExportLogsPartialSuccess", id: 1 },
                          },
                        },
                        ExportLogsPartialSuccess: {
                          fields: {
                            rejectedLogRecords: { type: "int64", id: 1 },
                            errorMessage: { type: "string", id: 2 },
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
            trace: {
              nested: {
                v1: {
                  nested: {
                    // Wire-identical to ExportTraceServiceRequest (§4): what the
                    // OpenTelemetry Collector's Kafka exporter writes.
                    TracesData: {
                      fields: {
                        resourceSpans: { rule: "repeated", type: "ResourceSpans", id: 1 },
                      },
                    },
                    ResourceSpans: {
                      fields: {
                        resource: { type: "opentelemetry.proto.resource.v1.Resource", id: 1 },
                        scopeSpans: { rule: "repeated", type: "ScopeSpans", id: 2 },
                        schemaUrl: { type: "string", id: 3 },
                      },
                      reserved: [[1000, 1000]],
                    },
                    ScopeSpans: {
                      fields: {
                        scope: { type: "opentelemetry.proto.common.v1.InstrumentationScope", id: 1 },
                        spans: { rule: "repeated", type: "Span", id: 2 },
                        schemaUrl: { type: "string", id: 3 },
                      },
                    },
                    Span: {
                      fields: {
                        traceId: { type: "bytes", id: 1 },
                        spanId: { type: "bytes", id: 2 },
                        traceState: { type: "string", id: 3 },
                        parentSpanId: { type: "bytes", id: 4 },
                        flags: { type: "fixed32", id: 16 },
                        name: { type: "string", id: 5 },
                        kind: { type: "SpanKind", id: 6 },
                        startTimeUnixNano: { type: "fixed64", id: 7 },
                        endTimeUnixNano: { type: "fixed64", id: 8 },
                        attributes: { rule: "repeated", type: "opentelemetry.proto.common.v1.KeyValue", id: 9 },
                        droppedAttributesCount: { type: "uint32", id: 10 },
                        events: { rule: "repeated", type: "Event", id: 11 },
                        droppedEventsCount: { type: "uint32", id: 12 },
                        links: { rule: "repeated", type: "Link", id: 13 },
                        droppedLinksCount: { type: "uint32", id: 14 },
                        status: { type: "Status", id: 15 },
                      },
                      nested: {
                        SpanKind: {
                          values: {
                            SPAN_KIND_UNSPECIFIED: 0,
                            SPAN_KIND_INTERNAL: 1,
                            SPAN_KIND_SERVER: 2,
                            SPAN_KIND_CLIENT: 3,
                            SPAN_KIND_PRODUCER: 4,
                            SPAN_KIND_CONSUMER: 5,
                          },
                        },
                        Event: {
                          fields: {
                            timeUnixNano: { type: "fixed64", id: 1 },
                            name: { type: "string", id: 2 },
                            attributes: {
                              rule: "repeated",
                              type: "opentelemetry.proto.common.v1.KeyValue",
                              id: 3,
                            },
                            droppedAttributesCount: { type: "uint32", id: 4 },
                          },
                        },
                        Link: {
                          fields: {
                            traceId: { type: "bytes", id: 1 },
                            spanId: { type: "bytes", id: 2 },
                            traceState: { type: "string", id: 3 },
                            attributes: {
                              rule: "repeated",
                              type: "opentelemetry.proto.common.v1.KeyValue",
                              id: 4,
                            },
                            droppedAttributesCount: { type: "uint32", id: 5 },
                            flags: { type: "fixed32", id: 6 },
                          },
                        },
                      },
                    },
                    Status: {
                      fields: {
                        message: { type: "string", id: 2 },
                        code: { type: "StatusCode", id: 3 },
                      },
                      reserved: [[1, 1]],
                      nested: {
                        StatusCode: {
                          values: {
                            STATUS_CODE_UNSET: 0,
                            STATUS_CODE_OK: 1,
                            STATUS_CODE_ERROR: 2,
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
            logs: {
              nested: {
                v1: {
                  nested: {
                    ResourceLogs: {
                      fields: {
                        resource: { type: "opentelemetry.proto.resource.v1.Resource", id: 1 },
                        scopeLogs: { rule: "repeated", type: "ScopeLogs", id: 2 },
                        schemaUrl: { type: "string", id: 3 },
                      },
                      reserved: [[1000, 1000]],
                    },
                    ScopeLogs: {
                      fields: {
                        scope: { type: "opentelemetry.proto.common.v1.InstrumentationScope", id: 1 },
                        logRecords: { rule: "repeated", type: "LogRecord", id: 2 },
                        schemaUrl: { type: "string", id: 3 },
                      },
                    },
                    LogRecord: {
                      fields: {
                        timeUnixNano: { type: "fixed64", id: 1 },
                        observedTimeUnixNano: { type: "fixed64", id: 11 },
                        severityNumber: { type: "SeverityNumber", id: 2 },
                        severityText: { type: "string", id: 3 },
                        body: { type: "opentelemetry.proto.common.v1.AnyValue", id: 5 },
                        attributes: { rule: "repeated", type: "opentelemetry.proto.common.v1.KeyValue", id: 6 },
                        droppedAttributesCount: { type: "uint32", id: 7 },
                        flags: { type: "fixed32", id: 8 },
                        traceId: { type: "bytes", id: 9 },
                        spanId: { type: "bytes", id: 10 },
                        eventName: { type: "string", id: 12 },
                      },
                      reserved: [[4, 4]],
                    },
                    SeverityNumber: {
                      values: {
                        SEVERITY_NUMBER_UNSPECIFIED: 0,
                        SEVERITY_NUMBER_TRACE: 1,
                        SEVERITY_NUMBER_TRACE2: 2,
                        SEVERITY_NUMBER_TRACE3: 3,
                        SEVERITY_NUMBER_TRACE4: 4,
                        SEVERITY_NUMBER_DEBUG: 5,
                        SEVERITY_NUMBER_DEBUG2: 6,
                        SEVERITY_NUMBER_DEBUG3: 7,
                        SEVERITY_NUMBER_DEBUG4: 8,
                        SEVERITY_NUMBER_INFO: 9,
                        SEVERITY_NUMBER_INFO2: 10,
                        SEVERITY_NUMBER_INFO3: 11,
                        SEVERITY_NUMBER_INFO4: 12,
                        SEVERITY_NUMBER_WARN: 13,
                        SEVERITY_NUMBER_WARN2: 14,
                        SEVERITY_NUMBER_WARN3: 15,
                        SEVERITY_NUMBER_WARN4: 16,
                        SEVERITY_NUMBER_ERROR: 17,
                        SEVERITY_NUMBER_ERROR2: 18,
                        SEVERITY_NUMBER_ERROR3: 19,
                        SEVERITY_NUMBER_ERROR4: 20,
                        SEVERITY_NUMBER_FATAL: 21,
                        SEVERITY_NUMBER_FATAL2: 22,
                        SEVERITY_NUMBER_FATAL3: 23,
                        SEVERITY_NUMBER_FATAL4: 24,
                      },
                    },
                  },
                },
              },
            },
            resource: {
              nested: {
                v1: {
                  nested: {
                    Resource: {
                      fields: {
                        attributes: {
                          rule: "repeated",
                          type: "opentelemetry.proto.common.v1.KeyValue",
                          id: 1,
                        },
                        droppedAttributesCount: { type: "uint32", id: 2 },
                      },
                    },
                  },
                },
              },
            },
            common: {
              nested: {
                v1: {
                  nested: {
                    AnyValue: {
                      oneofs: {
                        value: {
                          oneof: [
                            "stringValue",
                            "boolValue",
                            "intValue",
                            "doubleValue",
                            "arrayValue",
                            "kvlistValue",
                            "bytesValue",
                          ],
                        },
                      },
                      fields: {
                        stringValue: { type: "string", id: 1 },
                        boolValue: { type: "bool", id: 2 },
                        intValue: { type: "int64", id: 3 },
                        doubleValue: { type: "double", id: 4 },
                        arrayValue: { type: "ArrayValue", id: 5 },
                        kvlistValue: { type: "KeyValueList", id: 6 },
                        bytesValue: { type: "bytes", id: 7 },
                      },
                    },
                    ArrayValue: {
                      fields: {
                        values: { rule: "repeated", type: "AnyValue", id: 1 },
                      },
                    },
                    KeyValueList: {
                      fields: {
                        values: { rule: "repeated", type: "KeyValue", id: 1 },
                      },
                    },
                    KeyValue: {
                      fields: {
                        key: { type: "string", id: 1 },
                        value: { type: "AnyValue", id: 2 },
                      },
                    },
                    InstrumentationScope: {
                      fields: {
                        name: { type: "string", id: 1 },
                        version: { type: "string", id: 2 },
                        attributes: { rule: "repeated", type: "KeyValue", id: 3 },
                        droppedAttributesCount: { type: "uint32", id: 4 },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
    google: {
      nested: {
        rpc: {
          nested: {
            Status: {
              fields: {
                code: { type: "int32", id: 1 },
                message: { type: "string", id: 2 },
                details: { rule: "repeated", type: "google.protobuf.Any", id: 3 },
              },
            },
          },
        },
        protobuf: {
          nested: {
            Any: {
              fields: {
                typeUrl: { type: "string", id: 1 },
                value: { type: "bytes", id: 2 },
              },
            },
          },
        },
      },
    },
  },
};
