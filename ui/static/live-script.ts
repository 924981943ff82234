/**
 * The only client script: on the first page of a list, fetch the rows again
 * every two seconds from the same server and replace them, so traces appear
 * while they arrive. Served from this server as /static/live.js (no CDN).
 */
export const LIVE_SCRIPT = `(() => {
  const rows = document.getElementById("trace-rows");
  if (!rows || !rows.dataset.live) return;
  const status = document.getElementById("live-status");
  let busy = false;
  setInterval(async () => {
    if (busy || document.hidden) return;
    busy = true;
    try {
      const answer = await fetch(rows.dataset.live, { headers: { accept: "text/html" } });
      if (answer.ok) {
        rows.innerHTML = await answer.text();
        if (status) status.textContent = "Live: updated " + new Date().toISOString().slice(11, 19) + " UTC";
      } else if (status) status.textContent = "Live: the server answered " + answer.status;
    } catch (error) {
      if (status) status.textContent = "Live: the server does not answer";
    } finally {
      busy = false;
    }
  }, 2000);
})();
`;
