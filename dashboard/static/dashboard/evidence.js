/* Evidence view: step through matched passages; both panes scroll to the same passage.
   Marks carry data-p="i j" (the passages they belong to); the first mark of passage i in a
   pane has data-first="i". Keys: n / j next, p / k previous. */
(function () {
  "use strict";
  const root = document.getElementById("dash-evidence");
  if (!root) { return; }
  const total = parseInt(root.dataset.passages, 10) || 0;
  const panes = Array.from(root.querySelectorAll(".dash-text"));
  const counter = root.querySelector("[data-role=counter]");
  const template = counter ? counter.dataset.template : "";
  let current = -1;

  function marksOf(pane, i) {
    return pane.querySelectorAll('mark[data-p~="' + i + '"]');
  }

  function scrollPane(pane, mark) {
    const top = mark.offsetTop - pane.clientHeight / 3;
    pane.scrollTo({ top: Math.max(0, top), behavior: "auto" });
  }

  function show(i) {
    if (total === 0) { return; }
    current = ((i % total) + total) % total;
    root.querySelectorAll("mark.current").forEach(function (m) { m.classList.remove("current"); });
    panes.forEach(function (pane) {
      const marks = marksOf(pane, current);
      marks.forEach(function (m) { m.classList.add("current"); });
      if (marks.length) { scrollPane(pane, marks[0]); }
    });
    if (counter) {
      counter.textContent = template.replace("{n}", current + 1).replace("{total}", total);
    }
    root.dataset.current = String(current);
  }

  root.querySelectorAll("[data-step]").forEach(function (button) {
    button.addEventListener("click", function () {
      show(current + parseInt(button.dataset.step, 10));
    });
  });
  panes.forEach(function (pane) {
    pane.addEventListener("click", function (event) {
      const mark = event.target.closest("mark[data-p]");
      if (mark) { show(parseInt(mark.dataset.p.split(" ")[0], 10)); }
    });
  });
  document.addEventListener("keydown", function (event) {
    if (event.target.closest("input, textarea, select")) { return; }
    if (event.key === "n" || event.key === "j") { show(current + 1); }
    if (event.key === "p" || event.key === "k") { show(current - 1); }
  });
  show(0);
})();
