/**
 * The four panel kinds the dashboards use, built with the Grafana Foundation
 * SDK (interop.md §9) so their JSON follows Grafana's dashboard model. Every
 * panel reads the provisioned ClickHouse data source. The static HTML report
 * (report/) draws the same four kinds from the generated JSON.
 */
import * as barchart from "@grafana/grafana-foundation-sdk/barchart";
import * as common from "@grafana/grafana-foundation-sdk/common";
import * as dashboard from "@grafana/grafana-foundation-sdk/dashboard";
import * as stat from "@grafana/grafana-foundation-sdk/stat";
import * as table from "@grafana/grafana-foundation-sdk/table";
import * as timeseries from "@grafana/grafana-foundation-sdk/timeseries";
import { ClickHouseQueryBuilder } from "./clickhouse-query.js";
import { CLICKHOUSE_DATASOURCE } from "./datasource.js";

export interface PanelSize {
  /** Grid columns of 24. */
  width: number;
  /** Grid rows of 30 px. */
  height: number;
}

export interface ColumnOverride {
  column: string;
  unit?: string;
  /** Decimals of the column where the panel's (2 on a stat panel) would round its values far off: a cost of 0.00575 is not 0.01. */
  decimals?: number;
  /** Data link on the column's cells. */
  link?: { title: string; url: string };
}

const refIds = ["A", "B", "C", "D"];

function legend(): common.VizLegendOptionsBuilder {
  return new common.VizLegendOptionsBuilder().showLegend(true).displayMode(common.LegendDisplayMode.List).placement(common.LegendPlacement.Bottom).calcs([]);
}

function tooltip(): common.VizTooltipOptionsBuilder {
  return new common.VizTooltipOptionsBuilder().mode(common.TooltipDisplayMode.Multi).sort(common.SortOrder.Descending);
}

function applyOverrides<Builder extends { overrideByName(name: string, properties: dashboard.DynamicConfigValue[]): Builder }>(builder: Builder, overrides: readonly ColumnOverride[]): Builder {
  let result = builder;
  for (const override of overrides) {
    const properties: dashboard.DynamicConfigValue[] = [];
    if (override.unit) properties.push({ id: "unit", value: override.unit });
    if (override.decimals !== undefined) properties.push({ id: "decimals", value: override.decimals });
    if (override.link) properties.push({ id: "links", value: [{ title: override.link.title, url: override.link.url }] });
    result = result.overrideByName(override.column, properties);
  }
  return result;
}

/**
 * One row, one number per column: the query (or queries) aggregate over the
 * whole time range.
 */
export function statPanel(title: string, description: string, queries: readonly string[], unit: string, size: PanelSize, overrides: readonly ColumnOverride[] = []): stat.PanelBuilder {
  let panel = new stat.PanelBuilder()
    .title(title)
    .description(description)
    .datasource({ ...CLICKHOUSE_DATASOURCE })
    .unit(unit)
    .decimals(unit === "percentunit" ? 1 : 2)
    .graphMode(common.BigValueGraphMode.None)
    .colorMode(common.BigValueColorMode.None)
    .textMode(common.BigValueTextMode.ValueAndName)
    .reduceOptions(new common.ReduceDataOptionsBuilder().calcs(["lastNotNull"]).values(false).fields(""))
    .noValue("no data")
    .height(size.height)
    .span(size.width);
  queries.forEach((sql, index) => {
    panel = panel.withTarget(new ClickHouseQueryBuilder(refIds[index]!, sql, "table"));
  });
  return applyOverrides(panel, overrides);
}

export interface TimeSeriesOptions {
  /** Long format: the string column whose values name the series. */
  seriesColumn?: string;
  bars?: boolean;
  stacked?: boolean;
}

/**
 * At most this many points per series: Grafana's interval is the range over it, rounded, so a week or more gets
 * buckets of whole hours, which the metric panels read from metric_rollups_hourly (migration 0018) instead of
 * every minute. At the panel's width in pixels (Grafana's default) a 30-day range at 1,000 px got 30-minute
 * buckets, which read minutes.
 */
export const TIME_SERIES_MAX_DATA_POINTS = 200;

/** Columns: `time`, then either a series name column and `value` (long), or one numeric column per series (wide). */
export function timeSeriesPanel(title: string, description: string, queries: string | readonly string[], unit: string, size: PanelSize, options: TimeSeriesOptions = {}): timeseries.PanelBuilder {
  let panel = new timeseries.PanelBuilder()
    .title(title)
    .description(description)
    .datasource({ ...CLICKHOUSE_DATASOURCE })
    .unit(unit)
    .legend(legend())
    .tooltip(tooltip())
    .drawStyle(options.bars ? common.GraphDrawStyle.Bars : common.GraphDrawStyle.Line)
    .lineWidth(2)
    .fillOpacity(options.bars ? 80 : 10)
    .showPoints(common.VisibilityMode.Auto)
    .spanNulls(true)
    .maxDataPoints(TIME_SERIES_MAX_DATA_POINTS)
    .height(size.height)
    .span(size.width);
  (typeof queries === "string" ? [queries] : queries).forEach((sql, index) => {
    panel = panel.withTarget(new ClickHouseQueryBuilder(refIds[index]!, sql, "time_series"));
  });
  if (options.stacked) panel = panel.stacking(new common.StackingConfigBuilder().mode(common.StackingMode.Normal));
  // The plugin turns long rows into one field per series, labelled by the series column.
  if (options.seriesColumn) panel = panel.displayName(`\${__field.labels.${options.seriesColumn}}`);
  return panel;
}

export function tablePanel(title: string, description: string, sql: string, size: PanelSize, overrides: readonly ColumnOverride[] = []): table.PanelBuilder {
  const panel = new table.PanelBuilder()
    .title(title)
    .description(description)
    .datasource({ ...CLICKHOUSE_DATASOURCE })
    .withTarget(new ClickHouseQueryBuilder("A", sql, "table"))
    .showHeader(true)
    .cellHeight(common.TableCellHeight.Sm)
    .height(size.height)
    .span(size.width);
  return applyOverrides(panel, overrides);
}

/** Columns: a string column for the x axis, then one numeric column per bar group. */
export function barChartPanel(title: string, description: string, sql: string, unit: string, size: PanelSize, xField: string): barchart.PanelBuilder {
  return new barchart.PanelBuilder()
    .title(title)
    .description(description)
    .datasource({ ...CLICKHOUSE_DATASOURCE })
    .withTarget(new ClickHouseQueryBuilder("A", sql, "table"))
    .unit(unit)
    .xField(xField)
    .orientation(common.VizOrientation.Horizontal)
    .showValue(common.VisibilityMode.Auto)
    .legend(legend())
    .tooltip(tooltip())
    .fillOpacity(80)
    .height(size.height)
    .span(size.width);
}

export function row(title: string): dashboard.RowBuilder {
  return new dashboard.RowBuilder(title).collapsed(false);
}
