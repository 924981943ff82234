/**
 * The one ClickHouse data source every dashboard and alert rule uses: the uid
 * provisioned in deploy/grafana/provisioning/datasources/clickhouse.yaml
 * (interop.md §7 "Provisioning"). A test checks the two agree.
 */
export const CLICKHOUSE_DATASOURCE = { type: "grafana-clickhouse-datasource", uid: "ragscope-clickhouse" } as const;

/** The plugin version the panel targets are written for (interop.md §7 "Panel target JSON"). */
export const CLICKHOUSE_PLUGIN_VERSION = "4.20.0";
