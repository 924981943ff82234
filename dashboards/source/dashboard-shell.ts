/**
 * What every ragscope dashboard shares: a stable uid (provisioned files are
 * matched by uid, so links and bookmarks survive regeneration), the
 * `ragscope` tag, a link menu to the other ragscope dashboards, UTC time and
 * a one-minute refresh.
 */
import * as dashboard from "@grafana/grafana-foundation-sdk/dashboard";

export const DASHBOARD_TAG = "ragscope";

export function dashboardShell(uid: string, title: string, description: string): dashboard.DashboardBuilder {
  return new dashboard.DashboardBuilder(title)
    .uid(uid)
    .description(description)
    .tags([DASHBOARD_TAG])
    .editable()
    .timezone("utc")
    .time({ from: "now-24h", to: "now" })
    .refresh("1m")
    .tooltip(dashboard.DashboardCursorSync.Crosshair)
    .link(
      new dashboard.DashboardLinkBuilder("ragscope dashboards")
        .type(dashboard.DashboardLinkType.Dashboards)
        .tags([DASHBOARD_TAG])
        .asDropdown(true)
        .includeVars(true)
        .keepTime(true),
    );
}
