/**
 * The one schema of every ragscope setting: the collector's sections
 * (collector-config.ts), online evaluation (collector/wiring/online/online-config.ts)
 * and the judge endpoint (collector/wiring/online/judge-config.ts). It is parsed once,
 * at the command line (load-settings.ts), from flags > environment > config
 * file > defaults; each component then receives only its typed, frozen slice.
 *
 * A config file (`--config FILE`, YAML or JSON) uses the same names as this
 * schema — `kafka: { topic: … }` — and is validated by it: an unknown key is
 * an error, not ignored.
 */
import { z } from "zod";
import { checkEmbeddingsEndpoint } from "../online/embeddings-config.js";
import { checkJudgeEndpoint, judgeEndpointSection, type JudgeEndpointConfig } from "../online/judge-config.js";
import { onlineSections, type OnlineConfig } from "../online/online-config.js";
import { checkCollectorCombinations, collectorSections, type CollectorConfig } from "./collector-config.js";
import { everyPart, type CollectorParts } from "./command-parts.js";

const sections = {
  ...collectorSections,
  ...onlineSections,
  judgeEndpoint: judgeEndpointSection,
};

/**
 * The schema with the combination checks of the parts one command runs
 * (command-parts.ts): a value only another role reads never stops a command.
 */
export function settingsSchemaFor(parts: Readonly<CollectorParts>) {
  return z.strictObject(sections).superRefine((settings, context) => {
    checkCollectorCombinations(settings, context, parts);
    checkJudgeEndpoint(settings.judgeEndpoint, context);
    checkEmbeddingsEndpoint(settings.embeddingsEndpoint, context);
  });
}

/** Every combination checked, as for `ragscope config` or a caller that may run any part. */
export const settingsSchema = settingsSchemaFor(everyPart);

export type Settings = z.infer<typeof settingsSchema>;

/** The section names, in the order `ragscope config` prints them. */
export const sectionNames = Object.keys(sections) as (keyof Settings)[];

/** The slice the pipeline's components read (receiver, store, assembler, Kafka, …). */
export function collectorSettings(settings: Readonly<Settings>): Readonly<CollectorConfig> {
  const { receiver, clickhouse, assembler, queue, sink, kafka, memory, observe } = settings;
  return Object.freeze({ receiver, clickhouse, assembler, queue, sink, kafka, memory, observe });
}

/** The slice of online evaluation: sampling, the judge queue, alerts, the embeddings endpoint. */
export function onlineSettings(settings: Readonly<Settings>): Readonly<OnlineConfig> {
  const { sampling, judge, alerts, embeddingsEndpoint } = settings;
  return Object.freeze({ sampling, judge, alerts, embeddingsEndpoint });
}

/** Which judge: an OpenAI-compatible endpoint, or the heuristic judge. */
export function judgeEndpointSettings(settings: Readonly<Settings>): Readonly<JudgeEndpointConfig> {
  return settings.judgeEndpoint;
}

/** The setting names of a section (its keys in a config file); empty for an unknown section. */
export function sectionFields(section: string): string[] {
  const schema = (sections as Record<string, { def: { innerType: { shape: object } } } | undefined>)[section];
  return schema ? Object.keys(schema.def.innerType.shape) : [];
}
