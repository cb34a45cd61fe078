/* Progress of an import job (a .zip of works or one work file): polls the job's JSON until it
   is finished or failed, then shows the summary, or the links to the work. */
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

  function link(id, url) {
    if (!url) { return; }
    const a = document.getElementById(id);
    a.href = url;
    a.hidden = false;
    document.getElementById("import-links").hidden = false;
  }

  function show(job) {
    document.getElementById("import-bar").value = job.percent;
    const step = job.kind === "file" && job.state === "running" ? " · " + labels.steps[job.done] : "";
    document.getElementById("import-state").textContent = job.state_label + step;
    document.getElementById("import-count").textContent =
      job.done + " / " + job.total + " " + labels.works;
    box.dataset.state = job.state;
    if (job.error) {
      const error = document.getElementById("import-error");
      error.textContent = job.error;
      error.className = "errornote";
    }
    link("import-work", job.work_url);
    if (job.kind === "file" && job.state === "finished" && job.work_url) {
      window.location.assign(job.work_url);  // the work's page shows its indexing live
    }
    link("import-existing", job.existing_url);
    if (job.anyway_url) {
      const form = document.getElementById("import-anyway");
      form.action = job.anyway_url;
      form.hidden = false;
    }
    if (job.state === "finished" && job.kind === "archive") {
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
