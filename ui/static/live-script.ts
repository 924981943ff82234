/**
 * The live list's client script: on the first page of a list, the server's
 * trace events (server-sent events, /api/traces/stream) say when a new trace
 * is stored, and the list fetches its own rows again. Where events are not to
 * be had — no EventSource, the server refused the stream (503: too many open),
 * or the stream closed for good — it polls every two seconds instead. Served
 * from this server as /static/live.js (no CDN).
 */
import { LIST_END_HEADER } from "../pages/traces-page.js";
export const LIVE_SCRIPT = `(() => {
  const rows = document.getElementById("trace-rows");
  if (!rows || !rows.dataset.live) return;
  const status = document.getElementById("live-status");
  const say = (mode, text) => {
    if (!status) return;
    status.dataset.mode = mode;
    status.textContent = text;
  };
  let busy = false;
  const refresh = async (mode) => {
    if (busy) return;
    busy = true;
    try {
      const answer = await fetch(rows.dataset.live, { headers: { accept: "text/html" } });
      if (answer.ok) {
        rows.innerHTML = await answer.text();
        const empty = document.getElementById("list-empty");
        if (empty && rows.children.length > 0) empty.remove();
        // The rows moved: the page after them starts elsewhere, or the list now ends here (or no longer does).
        const end = document.getElementById("list-end");
        const older = answer.headers.get("${LIST_END_HEADER}");
        if (end && older !== null) {
          const item = document.createElement(older === "" ? "span" : "a");
          if (older === "") {
            item.className = "muted";
            item.textContent = "End of the list.";
          } else {
            item.id = "older";
            item.href = older;
            item.textContent = "Older traces \u2192";
          }
          end.replaceChildren(item);
        }
        say(mode, (mode === "events" ? "Live (server-sent events): updated " : "Live (polling every 2 s): updated ") + new Date().toISOString().slice(11, 19) + " UTC");
      } else say(mode, "Live: the server answered " + answer.status);
    } catch (error) {
      say(mode, "Live: the server does not answer");
    } finally {
      busy = false;
    }
  };
  let polling = null;
  const poll = () => {
    if (polling !== null) return;
    say("polling", "Live (polling every 2 s): new traces appear at the top.");
    polling = setInterval(() => {
      if (!document.hidden) refresh("polling");
    }, 2000);
  };
  if (typeof EventSource !== "function" || !rows.dataset.events) return poll();
  const source = new EventSource(rows.dataset.events);
  source.addEventListener("ready", () => say("events", "Live (server-sent events): new traces appear at the top."));
  source.addEventListener("traces", () => refresh("events"));
  source.addEventListener("error", () => {
    // CONNECTING: the browser reconnects by itself. CLOSED: refused or gone for good.
    if (source.readyState === EventSource.CLOSED) poll();
  });
})();
`;
