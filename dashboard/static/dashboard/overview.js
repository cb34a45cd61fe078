/* Overview charts (Chart.js 4, vendored). Data come from json_script elements. */
(function () {
  "use strict";
  if (typeof Chart === "undefined") { return; }
  const style = getComputedStyle(document.documentElement);
  const fg = style.getPropertyValue("--body-fg").trim() || "#333";
  const grid = style.getPropertyValue("--hairline-color").trim() || "#e8e8e8";
  const accent = style.getPropertyValue("--secondary").trim() || "#417690";
  Chart.defaults.color = fg;
  Chart.defaults.borderColor = grid;
  Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
  Chart.defaults.animation = false;

  function data(id) {
    const el = document.getElementById(id);
    return el ? JSON.parse(el.textContent) : null;
  }

  const perDay = data("dash-per-day");
  const perDayCanvas = document.getElementById("chart-per-day");
  if (perDay && perDayCanvas) {
    new Chart(perDayCanvas, {
      type: "bar",
      data: {
        labels: perDay.labels,
        datasets: [{ label: perDay.label, data: perDay.values, backgroundColor: accent }],
      },
      options: {
        maintainAspectRatio: false,
        plugins: { legend: { display: false } },
        scales: {
          x: { ticks: { maxTicksLimit: 12, autoSkip: true } },
          y: { beginAtZero: true, ticks: { precision: 0 } },
        },
      },
    });
  }

  function horizontal(id, canvasId, color) {
    const d = data(id);
    const canvas = document.getElementById(canvasId);
    if (!d || !canvas || !d.labels.length) { return; }
    new Chart(canvas, {
      type: "bar",
      data: { labels: d.labels, datasets: [{ label: d.label, data: d.values, backgroundColor: color, maxBarThickness: 26 }] },
      options: {
        indexAxis: "y",
        maintainAspectRatio: false,
        plugins: { legend: { display: false } },
        scales: { x: { beginAtZero: true, ticks: { precision: 0 } } },
      },
    });
  }
  horizontal("dash-domains", "chart-domains", "#c0392b");
  horizontal("dash-works", "chart-works", "#8e44ad");
  document.documentElement.dataset.chartsReady = "1";
})();
