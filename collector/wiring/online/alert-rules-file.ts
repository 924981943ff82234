/**
 * The alert rules of the gate file `alerts.gateFile` names, read and checked
 * as the online stage starts — and by `ragscope config`, so a file that is
 * missing or holds a rule the alerts cannot evaluate is refused there too,
 * not only when `serve` or `evaluate` starts.
 */
import { readGateFile } from "../../../dashboards/source/read-gate-file.js";
import { failure, success, type Result } from "../../../core/result.js";
import { AlertEvaluator } from "../../10-alert/alert-evaluator.js";
import { alertRulesFromGate, parseWindow } from "../../10-alert/alert-rule.js";
import type { OnlineConfig } from "./online-config.js";

/** The gate file's rules alerted on in this process, and a line naming those left to the Grafana alert rules (null: none). */
export async function loadAlertRules(config: OnlineConfig["alerts"]): Promise<Result<{ evaluator: AlertEvaluator; skippedNotice: string | null } | null, string[]>> {
  if (config.gateFile === null) return success(null);
  const gate = await readGateFile(config.gateFile);
  if (!gate.ok) return failure(gate.error.map((line) => `alerts gate file ${line}`));
  const window = parseWindow(config.window);
  if (!window.ok) return failure([`alerts.window: ${window.error}`]);
  const rules = alertRulesFromGate(gate.value.rules, {
    windowMs: window.value,
    windowSamples: config.windowSamples,
    minSamples: config.minSamples,
    confidence: config.confidence,
    hysteresis: config.hysteresis,
    maxTraceIds: 20,
  });
  if (!rules.ok) return failure(rules.error.map((problem) => `alerts gate file ${config.gateFile}: ${problem}`));
  // Said at start: an operator who put a rule in the gate file would otherwise wait for an alert that never comes.
  const byReason = new Map<string, string[]>();
  for (const rule of rules.value.skipped) byReason.set(rule.reason, [...(byReason.get(rule.reason) ?? []), rule.id]);
  const skippedNotice =
    byReason.size === 0
      ? null
      : `ragscope alerts: ${config.gateFile}: ${rules.value.rules.length} rules alerted on here; ${rules.value.skipped.length} left to the Grafana alert rules (deploy/grafana/provisioning/alerting/): ${[...byReason].map(([reason, ids]) => `${ids.join(", ")} (${reason})`).join("; ")}`;
  return success({ evaluator: new AlertEvaluator(rules.value.rules), skippedNotice });
}
