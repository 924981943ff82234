/**
 * A panel target for the ClickHouse data source. The Grafana Foundation SDK
 * has no ClickHouse query builder, so this is the documented escape hatch
 * (interop.md §9): a `cog.Builder<cog.Dataquery>` whose object carries the
 * plugin's SQL target fields (interop.md §7 "Panel target JSON"), plus the
 * `_implementsDataqueryVariant` marker that JSON.stringify drops.
 */
import type * as cog from "@grafana/grafana-foundation-sdk/cog";
import { CLICKHOUSE_DATASOURCE, CLICKHOUSE_PLUGIN_VERSION } from "./datasource.js";

/** The plugin's sqlutil format enum: 0 time series, 1 table (interop.md §7). */
export type QueryFormat = "time_series" | "table";

export const FORMAT_CODES: Record<QueryFormat, number> = { time_series: 0, table: 1 };

export interface ClickHouseTarget {
  datasource: { type: string; uid: string };
  refId: string;
  editorType: "sql";
  format: number;
  pluginVersion: string;
  rawSql: string;
}

export class ClickHouseQueryBuilder implements cog.Builder<cog.Dataquery> {
  constructor(
    private readonly refId: string,
    private readonly rawSql: string,
    private readonly format: QueryFormat,
  ) {}

  build(): cog.Dataquery {
    const target: ClickHouseTarget & cog.Dataquery = {
      _implementsDataqueryVariant() {},
      datasource: { ...CLICKHOUSE_DATASOURCE },
      refId: this.refId,
      editorType: "sql",
      format: FORMAT_CODES[this.format],
      pluginVersion: CLICKHOUSE_PLUGIN_VERSION,
      rawSql: this.rawSql,
    };
    return target;
  }
}
