/* The recipient's evidence page: each page's bundle replayed in a <replay-web-page> element
   (ReplayWeb.page, served by the platform under /replay/), the first one at once, the others
   when asked. The element is made once its service worker is active: a frame opened before
   the worker controls it is reloaded only a few times by ReplayWeb.page, which a slow first
   install of the worker (1.2 MB) can outlast. */
(function () {
  "use strict";
  const ready = {};

  function workerReady(base) {
    if (!("serviceWorker" in navigator)) { return Promise.resolve(); }
    if (!ready[base]) {
      // the script URL and scope ReplayWeb.page registers itself, so that its own
      // registration finds this one and changes nothing
      ready[base] = navigator.serviceWorker.register(base + "sw.js?serveIndex=1", { scope: base })
        .then(function (registration) {
          const worker = registration.installing || registration.waiting || registration.active;
          if (!worker || worker.state === "activated") { return undefined; }
          return new Promise(function (resolve) {
            worker.addEventListener("statechange", function () {
              if (worker.state === "activated" || worker.state === "redundant") { resolve(); }
            });
          });
        })
        .catch(function () { return undefined; });  // the element then says what failed
    }
    return ready[base];
  }

  function replay(box) {
    if (box.dataset.started) { return; }
    box.dataset.started = "1";
    const button = box.querySelector("[data-role=replay]");
    if (button) { button.disabled = true; }
    workerReady(box.dataset.replayBase).then(function () {
      const element = document.createElement("replay-web-page");
      element.setAttribute("source", box.dataset.source);
      element.setAttribute("url", box.dataset.url);
      element.setAttribute("replaybase", box.dataset.replayBase);
      element.setAttribute("embed", "replayonly");
      if (button) { button.remove(); }
      box.appendChild(element);
    });
  }

  document.querySelectorAll(".rcp-replay").forEach(function (box) {
    const button = box.querySelector("[data-role=replay]");
    if (button) { button.addEventListener("click", function () { replay(box); }); }
    if (box.dataset.autoload) { replay(box); }
  });
}());
