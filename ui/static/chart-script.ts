/**
 * Draws the time charts of the "Quality over time" and "Failures" pages with
 * uPlot (served from node_modules as /static/uPlot.iife.min.js, no CDN). The
 * data comes in the page as JSON (a script element of type
 * application/json, which the Content Security Policy allows and the
 * browser never runs). Times are shown in UTC, like every time in the UI.
 */
export const CHART_SCRIPT = `(() => {
  const source = document.getElementById("chart-data");
  if (!source || typeof uPlot !== "function") return;
  const palette = ["#2f6fde", "#d9480f", "#2b8a3e", "#862e9c", "#c92a2a", "#0b7285", "#e67700", "#5c940d", "#364fc7", "#a61e4d"];
  const format = (value, unit) => {
    if (value === null || value === undefined) return "";
    if (unit === "percentunit") return (value * 100).toFixed(value * 100 % 1 === 0 ? 0 : 1) + "%";
    if (unit === "ms") return value >= 1000 ? (value / 1000).toFixed(1) + " s" : Math.round(value) + " ms";
    return String(Math.round(value * 1000) / 1000);
  };
  for (const chart of JSON.parse(source.textContent)) {
    const target = document.getElementById(chart.id);
    if (!target) continue;
    const options = {
      width: Math.max(320, target.clientWidth || 900),
      height: 220,
      tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), "Etc/UTC"),
      scales: { x: { time: true } },
      series: [{}].concat(chart.series.map((series, index) => ({
        label: series.label,
        stroke: palette[index % palette.length],
        width: 2,
        points: { show: true, size: 5 },
        value: (plot, value) => format(value, chart.unit),
      }))),
      axes: [{}, { size: 60, values: (plot, ticks) => ticks.map((tick) => format(tick, chart.unit)) }],
    };
    new uPlot(options, [chart.times.map((time) => time / 1000)].concat(chart.series.map((series) => series.values)), target);
    target.dataset.drawn = "yes";
  }
})();
`;
