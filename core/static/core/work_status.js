/* Live ingestion status of the works on a page (works list, a work's page): every
 * [data-work-status][data-done="0"] element is polled at its data-url (?id=N&id=M) every
 * data-poll-ms until its work is indexed or failed; a failed poll waits twice as long, up to
 * data-poll-max-ms. The element's text becomes the status in words. */
function watchWorkStatus() {
  "use strict";
  const pending = () => Array.from(document.querySelectorAll('[data-work-status][data-done="0"]'));
  const first = pending()[0];
  if (!first) { return; }
  const pollMs = Number(first.dataset.pollMs) || 2000;
  const maxMs = Number(first.dataset.pollMaxMs) || 60000;
  let wait = pollMs;

  function poll() {
    const elements = pending();
    if (!elements.length) { return; }
    const query = elements.map((el) => "id=" + encodeURIComponent(el.dataset.id)).join("&");
    fetch(first.dataset.url + "?" + query, {
      credentials: "same-origin", headers: { "Accept": "application/json" },
    }).then((response) => {
      if (!response.ok) { throw new Error(String(response.status)); }
      return response.json();
    }).then((body) => {
      (body.works || []).forEach((work) => {
        document.querySelectorAll('[data-work-status][data-id="' + work.id + '"]').forEach((el) => {
          el.textContent = work.label;
          el.title = work.error || "";
          el.dataset.done = work.done ? "1" : "0";
        });
      });
      wait = pollMs;
    }).catch(() => {
      wait = Math.min(wait * 2, maxMs);
    }).finally(() => {
      if (pending().length) { window.setTimeout(poll, wait); }
    });
  }
  window.setTimeout(poll, wait);
}
// the admin loads this script in the page's head, before the elements exist
document.addEventListener("DOMContentLoaded", watchWorkStatus);
