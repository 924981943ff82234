/** CaseStore in memory: the latest `put` of a (case_id, case_version) wins. */
import type { EvalCase } from "../../contracts/eval-case.js";
import type { CaseStore } from "../ports/case-store.js";
import type { MemoryTables } from "./memory-tables.js";

export const caseKey = (caseId: string, caseVersion: string) => `${caseId}\u0000${caseVersion}`;

export class MemoryCaseStore implements CaseStore {
  private writes = 0;

  constructor(private readonly tables: MemoryTables) {}

  async put(cases: readonly EvalCase[]): Promise<void> {
    this.writes += 1;
    for (const item of cases) this.tables.evalCases.upsert(caseKey(item.case_id, item.case_version), structuredClone(item), this.writes);
  }

  async get(caseId: string, caseVersion: string): Promise<EvalCase | null> {
    if (caseId === "") return null;
    const found = this.tables.evalCases.get(caseKey(caseId, caseVersion));
    return found === undefined ? null : structuredClone(found);
  }
}
