/**
 * Makes sure the topics a role uses exist and learns their partition counts
 * (the evaluator needs them to know which partition a trace id belongs to).
 * A missing topic is created with the broker's defaults (num.partitions) and
 * the creation is logged: operators who want more partitions create the
 * topic beforehand (see the README, "Running with Kafka").
 */
import type { Admin } from "kafkajs";

/**
 * @param consumed the topics a consumer group reads (the span topic, a repartition topic), whose partition count
 *   bounds the evaluators that read at once; the advice to create them beforehand is given only when one of them was
 *   created (a dead-letter topic is written, not read by the group)
 */
export async function ensureTopics(admin: Admin, topics: readonly string[], log: (line: string) => void, consumed: readonly string[] = topics): Promise<Map<string, number>> {
  const wanted = [...new Set(topics)];
  const existing = new Set(await admin.listTopics());
  const missing = wanted.filter((topic) => !existing.has(topic));
  if (missing.length > 0) {
    await admin.createTopics({ waitForLeaders: true, topics: missing.map((topic) => ({ topic })) });
  }
  const counts = await partitionCounts(admin, wanted);
  if (missing.length > 0) {
    // The count bounds how many evaluators of a group read at once: say it, rather than leave it to be found in Kafka.
    const created = missing.map((topic) => `${topic} (${counts.get(topic) ?? "?"} partition${counts.get(topic) === 1 ? "" : "s"})`).join(", ");
    const read = missing.filter((topic) => consumed.includes(topic));
    log(
      `created Kafka topic${missing.length === 1 ? "" : "s"} ${created} with the broker's default partition count (num.partitions)` +
        (read.length === 0
          ? ""
          : `; a consumer group reads a partition with one member at a time, so create ${read.join(" and ")} beforehand with as many partitions as evaluators you will run, or add partitions later (kafka-topics.sh --alter --partitions N)`),
    );
  }
  return counts;
}

export async function partitionCounts(admin: Admin, topics: readonly string[]): Promise<Map<string, number>> {
  const metadata = await admin.fetchTopicMetadata({ topics: [...topics] });
  return new Map(metadata.topics.map((topic) => [topic.name, topic.partitions.length]));
}
