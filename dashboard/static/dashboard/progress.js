/* Live progress of running scans (scan run page, overview), without reloading the page.
 *
 * A container [data-scan-progress] names the JSON endpoint (data-url, crawler.progress) and the
 * polling rhythm (data-poll-ms, data-poll-max-ms, from settings). Each scan inside it is an
 * element [data-scan-id] with data-running="1" while it runs; its [data-field] elements are
 * filled from the scan's figures ("—" for none, or the element's data-empty). Polling stops
 * once no scan runs. A failed poll shows the
 * container's [data-progress-message] (the server's message, else data-failed-text) and the
 * next poll waits twice as long, up to data-poll-max-ms.
 */
(function () {
  "use strict";

  function fill(row, scan) {
    row.querySelectorAll("[data-field]").forEach(function (el) {
      const name = el.dataset.field;
      if (name === "status") {
        el.className = "dash-badge " + scan.status;
        el.textContent = scan.status_label;
      } else if (name in scan) {
        const value = scan[name];
        const empty = el.dataset.empty !== undefined ? el.dataset.empty : "—";
        el.textContent = value === null || value === "" ? empty : String(value);
      }
    });
    row.dataset.running = scan.running ? "1" : "0";
  }

  function watch(box) {
    const base = box.dataset.url;
    const pollMs = Number(box.dataset.pollMs) || 2000;
    const maxMs = Number(box.dataset.pollMaxMs) || 60000;
    const message = box.querySelector("[data-progress-message]");
    let wait = pollMs;

    function running() {
      return Array.from(box.querySelectorAll('[data-scan-id][data-running="1"]'));
    }

    function say(text) {
      if (!message) { return; }
      message.textContent = text;
      message.hidden = !text;
    }

    function schedule() {
      if (running().length) {
        window.setTimeout(poll, wait);
      } else {
        box.dataset.progressState = "done";
      }
    }

    function poll() {
      const rows = running();
      const query = rows.map(function (row) {
        return "id=" + encodeURIComponent(row.dataset.scanId);
      }).join("&");
      fetch(base + "?" + query, {
        credentials: "same-origin", headers: { "Accept": "application/json" },
      }).then(function (response) {
        return response.json().catch(function () { return {}; }).then(function (body) {
          if (!response.ok || !Array.isArray(body.scans)) {
            const failure = new Error("poll failed");
            failure.text = body.error;  // the server's message, in the page's language
            throw failure;
          }
          return body.scans;
        });
      }).then(function (scans) {
        scans.forEach(function (scan) {
          const row = box.querySelector('[data-scan-id="' + scan.id + '"]');
          if (row) { fill(row, scan); }
        });
        say("");
        wait = pollMs;
        box.dataset.polls = String(Number(box.dataset.polls || 0) + 1);
      }).catch(function (error) {
        // a network failure or an expired session (HTML instead of JSON) ends up here too
        say((error && error.text) || box.dataset.failedText);
        wait = Math.min(wait * 2, maxMs);
      }).then(schedule);
    }

    schedule();
  }

  document.querySelectorAll("[data-scan-progress]").forEach(watch);
})();
