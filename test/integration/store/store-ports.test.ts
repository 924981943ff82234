/**
 * Every port of the store (store/ports) against both implementations: the
 * ClickHouse adapter on the real engine (chDB, or the server in
 * RAGSCOPE_TEST_CLICKHOUSE_URL) and the in-memory store. One contract suite
 * per port; both implementations must pass the same suite.
 */
import { alertSinkContract } from "./contracts/alert-sink-contract.js";
import { caseStoreContract } from "./contracts/case-store-contract.js";
import { healthSinkContract } from "./contracts/health-sink-contract.js";
import { humanLabelStoreContract } from "./contracts/human-label-store-contract.js";
import { judgeResultSinkContract } from "./contracts/judge-result-sink-contract.js";
import { resultSinkContract } from "./contracts/result-sink-contract.js";
import { runLineageSinkContract } from "./contracts/run-lineage-sink-contract.js";
import { runListingContract } from "./contracts/run-listing-contract.js";
import { runReaderContract } from "./contracts/run-reader-contract.js";
import { traceReaderContract } from "./contracts/trace-reader-contract.js";
import { requestBoundLabelsContract } from "./contracts/request-bound-labels-contract.js";
import { implementations } from "./contracts/store-under-test.js";

for (const [name, factory] of implementations) {
  resultSinkContract(name, factory);
  caseStoreContract(name, factory);
  judgeResultSinkContract(name, factory);
  humanLabelStoreContract(name, factory);
  healthSinkContract(name, factory);
  alertSinkContract(name, factory);
  runLineageSinkContract(name, factory);
  runReaderContract(name, factory);
  traceReaderContract(name, factory);
  runListingContract(name, factory);
  requestBoundLabelsContract(name, factory);
}
