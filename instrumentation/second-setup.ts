/**
 * What a second `setupRagscope` call does to the running setup.
 *
 * The usual case is the README's own: `node --import ragscope/register app.js`
 * starts ragscope from the environment, then the application's
 * `setupRagscope({ serviceName, captureText: false })` runs. A second exporter
 * would send every span twice, so the running setup stays — but the options
 * the application asked for must not be dropped quietly:
 *
 * - Privacy options never end less private than the application asked: the
 *   stricter of the two is applied to the running setup at once (text capture
 *   off, per stage too; the smaller maximum text length; redaction added in
 *   front of the export path, the stricter mode — `replace` over `hash` over
 *   none — and any custom patterns). A request's options are read per call,
 *   so the next span follows them. A looser request keeps the running, stricter value.
 * - Options fixed at start (service name, endpoint, protocol, headers,
 *   resource attributes, sample rate, exit flush, export limits, export
 *   worker) that differ cannot be applied; each is named on stderr with its
 *   variable, so the preload can be given them, or dropped.
 */
import { randomBytes } from "node:crypto";
import { RagStage, type RagStageName } from "../contracts/span-attributes.js";
import type { StageSwitches } from "./configuration.js";
import type { RedactionOptions } from "./redaction/redactor.js";
import type { ResolvedSetupOptions } from "./setup-options.js";

export interface IgnoredOption {
  readonly option: string;
  readonly requested: string;
  readonly running: string;
  /** The variable that sets it for the preload. */
  readonly variable: string;
}

export interface SecondSetup {
  /** The running setup's options after this call: the stricter privacy options applied. */
  readonly running: ResolvedSetupOptions;
  /** Redaction to put in front of the running export path, or null when it already redacts at least as much. */
  readonly addedRedaction: (RedactionOptions & { hashKey: string }) | null;
  /** Privacy options made stricter, as `name value` for the report. */
  readonly applied: readonly string[];
  /** Privacy options asked looser than the running setup: the running value is kept. */
  readonly keptStricter: readonly string[];
  readonly ignored: readonly IgnoredOption[];
}

const STAGES = Object.values(RagStage) as RagStageName[];

export function joinRunningSetup(running: ResolvedSetupOptions, requested: ResolvedSetupOptions): SecondSetup {
  const applied: string[] = [];
  const keptStricter: string[] = [];

  const captureText = running.captureText && requested.captureText;
  if (captureText !== running.captureText) applied.push("captureText false");
  else if (captureText !== requested.captureText) keptStricter.push("captureText false");
  const captureTextByStage: StageSwitches = {};
  for (const stage of STAGES) {
    const strict = captures(running, stage) && captures(requested, stage);
    // Stages that follow captureText are said by it; only the stages that differ from it are named.
    if (strict === captureText) continue;
    captureTextByStage[stage] = strict;
    if (strict !== captures(running, stage)) applied.push(`text capture off for ${stage}`);
    else if (strict !== captures(requested, stage)) keptStricter.push(`text capture off for ${stage}`);
  }
  const maxTextLength = Math.min(running.maxTextLength, requested.maxTextLength);
  if (maxTextLength < running.maxTextLength) applied.push(`maxTextLength ${maxTextLength}`);
  else if (maxTextLength < requested.maxTextLength) keptStricter.push(`maxTextLength ${maxTextLength}`);

  const addedRedaction = redactionToAdd(running.redaction, requested.redaction);
  if (addedRedaction !== null) applied.push(`redaction ${addedRedaction.mode}${addedRedaction.patterns !== undefined ? " with the custom patterns" : ""}`);
  else if (redactionStrictness(running.redaction) > redactionStrictness(requested.redaction)) keptStricter.push(`redaction ${describeRedaction(running.redaction)}`);

  return {
    running: Object.freeze({ ...running, captureText, captureTextByStage, maxTextLength, redaction: addedRedaction ?? running.redaction }),
    addedRedaction,
    applied: [...new Set(applied)],
    keptStricter: [...new Set(keptStricter)],
    ignored: fixedAtStart(running, requested),
  };
}

/** The report for stderr, or null when the call asked for nothing the running setup does not already do. */
export function describeSecondSetup(second: SecondSetup): string | null {
  if (second.applied.length === 0 && second.keptStricter.length === 0 && second.ignored.length === 0) return null;
  const lines = ["ragscope: setupRagscope was called while ragscope is already running (the ragscope/register preload, or an earlier call); the running setup is kept."];
  if (second.applied.length > 0) lines.push(`  Applied to it, as the stricter privacy options: ${second.applied.join("; ")}.`);
  if (second.keptStricter.length > 0) lines.push(`  Kept, as stricter than this call asked: ${second.keptStricter.join("; ")}.`);
  if (second.ignored.length > 0) {
    lines.push("  Ignored, as they cannot change after start:");
    for (const ignored of second.ignored) lines.push(`    ${ignored.option} ${ignored.requested} (running: ${ignored.running}; for the preload set ${ignored.variable})`);
    lines.push("  To apply them, drop the preload (--import ragscope/register) or the earlier setupRagscope call, or give the preload these variables.");
  }
  return lines.join("\n");
}

function captures(options: ResolvedSetupOptions, stage: RagStageName): boolean {
  return options.captureTextByStage[stage] ?? options.captureText;
}

/** none < hash (equal values stay equal) < replace (nothing of the value is kept). */
function redactionStrictness(redaction: RedactionOptions | null): number {
  if (redaction === null) return 0;
  return (redaction.mode ?? "replace") === "replace" ? 2 : 1;
}

function describeRedaction(redaction: RedactionOptions | null): string {
  return redaction === null ? "off" : (redaction.mode ?? "replace");
}

function redactionToAdd(running: RedactionOptions | null, requested: RedactionOptions | null): (RedactionOptions & { hashKey: string }) | null {
  if (requested === null) return null;
  const custom = requested.patterns !== undefined || requested.keepAttribute !== undefined;
  if (!custom && redactionStrictness(requested) <= redactionStrictness(running)) return null;
  // In front of a running `replace`, a `hash` would keep equal values equal that the running setup replaces: the stricter mode wins.
  const mode = Math.max(redactionStrictness(requested), redactionStrictness(running)) === 2 ? "replace" : "hash";
  return { ...requested, mode, hashKey: requested.hashKey ?? randomBytes(32).toString("hex") };
}

function fixedAtStart(running: ResolvedSetupOptions, requested: ResolvedSetupOptions): IgnoredOption[] {
  const ignored: IgnoredOption[] = [];
  const compare = (option: string, variable: string, runningValue: unknown, requestedValue: unknown): void => {
    if (JSON.stringify(runningValue) !== JSON.stringify(requestedValue)) ignored.push({ option, requested: JSON.stringify(requestedValue), running: JSON.stringify(runningValue), variable });
  };
  compare("serviceName", "RAGSCOPE_SERVICE_NAME", running.serviceName, requested.serviceName);
  compare("endpoint", "RAGSCOPE_ENDPOINT", running.tracesUrl, requested.tracesUrl);
  compare("protocol", "RAGSCOPE_PROTOCOL", running.protocol, requested.protocol);
  // Header values are credentials: named, never printed.
  if (JSON.stringify(sortedEntries(running.headers)) !== JSON.stringify(sortedEntries(requested.headers))) {
    ignored.push({ option: "headers", requested: `named ${JSON.stringify(Object.keys(requested.headers).sort())}`, running: `named ${JSON.stringify(Object.keys(running.headers).sort())}`, variable: "RAGSCOPE_HEADERS" });
  }
  compare("resourceAttributes", "OTEL_RESOURCE_ATTRIBUTES", running.resourceAttributes, requested.resourceAttributes);
  compare("sampleRate", "RAGSCOPE_SAMPLE_RATE", running.sampleRate, requested.sampleRate);
  compare("flushOnExit", "RAGSCOPE_FLUSH_ON_EXIT", running.flushOnExit, requested.flushOnExit);
  compare("exportLimits", "OTEL_BSP_* and RAGSCOPE_MAX_* (setup-options.ts)", running.exportLimits, requested.exportLimits);
  compare("exportInWorker", "RAGSCOPE_EXPORT_WORKER", running.exportInWorker, requested.exportInWorker);
  if (running.redaction !== null && requested.redaction !== null && requested.redaction.hashKey !== undefined && requested.redaction.hashKey !== running.redaction.hashKey) {
    ignored.push({ option: "redaction.hashKey", requested: "(a different key)", running: "(the running key)", variable: "RAGSCOPE_REDACTION_HASH_KEY" });
  }
  return ignored;
}

function sortedEntries(record: Record<string, string>): [string, string][] {
  return Object.entries(record).sort(([left], [right]) => left.localeCompare(right));
}
