/**
 * A dataset for tasks/priced-task.ts: `cases` cases `<datasetId>_<n>`, each
 * asking what item n costs, with the chunk the task retrieves as its gold
 * evidence and the answer the task gives.
 */
export function pricedDataset(datasetId: string, cases: number): string {
  return [
    `dataset_id: ${datasetId}`,
    'dataset_version: "1"',
    "cases:",
    ...Array.from({ length: cases }, (_, index) => [
      `  - case_id: ${datasetId}_${index}`,
      "    case_version: v1",
      `    input: What does item ${index} cost?`,
      `    gold_evidence: [{ document_id: doc_${index}, chunk_id: chunk_${index} }]`,
      "    metadata:",
      `      retrieve: { document: doc_${index}, chunk: chunk_${index}, text: "Item ${index} costs five dollars." }`,
      `      answer: Item ${index} costs five dollars.`,
    ]).flat(),
    "",
  ].join("\n");
}
