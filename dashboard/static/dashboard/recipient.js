/* The recipient's evidence page: each page's bundle replayed in a <replay-web-page> element
   (ReplayWeb.page, served by the platform under /replay/), the first one at once, the others
   when asked. */
(function () {
  "use strict";
  function replay(box) {
    if (box.querySelector("replay-web-page")) { return; }
    const element = document.createElement("replay-web-page");
    element.setAttribute("source", box.dataset.source);
    element.setAttribute("url", box.dataset.url);
    element.setAttribute("replaybase", box.dataset.replayBase);
    element.setAttribute("embed", "replayonly");
    const button = box.querySelector("[data-role=replay]");
    if (button) { button.remove(); }
    box.appendChild(element);
  }
  document.querySelectorAll(".rcp-replay").forEach(function (box) {
    const button = box.querySelector("[data-role=replay]");
    if (button) { button.addEventListener("click", function () { replay(box); }); }
    if (box.dataset.autoload) { replay(box); }
  });
}());
