/**
 * What the root-cause labels a board shows mean, under that board in the
 * HTML report: the panels show only the label names (RETRIEVAL_MISS, …) as
 * the Grafana dashboards do, and a reader who does not read Chinese needs the
 * English; the seed's own wording (004 §十) follows it and is the title.
 */
import { ROOT_CAUSE_LABEL_NAMES, rootCauseMeaning, type RootCauseLabel } from "../evaluators/root-cause/root-cause-labels.js";
import type { Frame } from "./panel-data.js";
import { escapeXml } from "./svg-charts.js";

/** The labels among a board's query results (a column's values or, for a pivoted series, its name), in the labels' order. */
export function rootCauseLabelsIn(frames: readonly Frame[]): RootCauseLabel[] {
  const seen = new Set<string>();
  for (const frame of frames)
    for (const field of frame.fields) {
      seen.add(field.name);
      if (field.type === "string") for (const value of field.values) if (typeof value === "string") seen.add(value);
    }
  return ROOT_CAUSE_LABEL_NAMES.filter((label) => seen.has(label));
}

/** The glossary of `labels` as HTML; empty when there are none. */
export function rootCauseGlossary(labels: readonly RootCauseLabel[]): string {
  if (labels.length === 0) return "";
  const entries = labels.map((label) => {
    const meaning = rootCauseMeaning(label)!;
    const seed = meaning.seedWording === null ? "" : ` <span class="seed-wording" lang="zh">(${escapeXml(meaning.seedWording)})</span>`;
    const title = meaning.seedWording === null ? "" : ` title="Seed 004 §十: ${escapeXml(meaning.seedWording)}"`;
    return `<dt>${escapeXml(label)}</dt><dd data-root-cause="${escapeXml(label)}"${title}>${escapeXml(meaning.english)}${seed}</dd>`;
  });
  return `<section class="glossary" data-glossary="root-causes"><h3 class="row">What the root-cause labels mean</h3><dl>${entries.join("")}</dl></section>`;
}
