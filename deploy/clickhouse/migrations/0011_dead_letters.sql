-- Dead letters of the embedded collector: messages the receiver acknowledged
-- that the evaluation could not turn into a stored result (a body the worker
-- could not decode, a rebuilt Case Result that fails its schema). Kept here
-- with the reason, so nothing acknowledged is lost silently and a restart
-- keeps them (`ragscope dead-letters` lists them; the Kafka roles use the
-- dead-letter topic instead). `body_base64` is the message as received
-- (OTLP protobuf or JSON, or the rejected Case Result as JSON), base64.
-- `{{database}}` is replaced by the configured database name.

CREATE TABLE IF NOT EXISTS {{database}}.dead_letters
(
    letter_id String,
    received_at DateTime64(3, 'UTC'),
    code LowCardinality(String),
    reason String,
    trace_id String,
    content_type String,
    body_bytes UInt64,
    body_base64 String CODEC(ZSTD(3))
)
ENGINE = MergeTree
ORDER BY (received_at, letter_id);
