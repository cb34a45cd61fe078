/* Progress of a .zip import: polls the job's JSON until it is finished or failed. */
(function () {
  "use strict";
  const box = document.getElementById("import-job");
  if (!box) { return; }
  const labels = JSON.parse(document.getElementById("import-labels").textContent);
  const every = parseInt(box.dataset.pollMs, 10) || 1000;

  function section(name, rows) {
    if (!rows.length) { return; }
    const head = document.createElement("h3");
    head.textContent = labels[name] + ": " + rows.length;
    const list = document.createElement("ul");
    list.className = "import-" + name;
    rows.forEach(function (row) {
      const item = document.createElement("li");
      item.textContent = Array.isArray(row) ? row[0] + ": " + row[1] : row;
      list.appendChild(item);
    });
    const out = document.getElementById("import-summary");
    out.appendChild(head);
    out.appendChild(list);
  }

  function show(job) {
    document.getElementById("import-bar").value = job.percent;
    document.getElementById("import-state").textContent = job.state_label;
    document.getElementById("import-count").textContent =
      job.done + " / " + job.total + " " + labels.works;
    box.dataset.state = job.state;
    if (job.error) {
      const error = document.getElementById("import-error");
      error.textContent = job.error;
      error.className = "errornote";
    }
    if (job.state === "finished") {
      ["registered", "updated", "duplicates", "skipped", "failed"].forEach(function (name) {
        section(name, job.summary[name] || []);
      });
    }
    return job.state === "running";
  }

  function poll() {
    fetch(box.dataset.statusUrl, { credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (job) { if (show(job)) { setTimeout(poll, every); } })
      .catch(function () { setTimeout(poll, every * 5); });
  }
  poll();
}());
