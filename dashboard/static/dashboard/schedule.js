// The target site's form shows only the schedule fields its frequency uses: the time for daily
// scans, the day and the time for weekly ones, the minute for hourly ones. Hidden fields are
// disabled, so the form posts nothing that the chosen schedule would ignore.
"use strict";
const frequency = document.getElementById("id_schedule_frequency");
if (frequency) {
  const uses = {daily: ["schedule_time"], weekly: ["schedule_time", "schedule_weekday"],
                hourly: ["schedule_minute"]};
  const optional = ["schedule_time", "schedule_weekday", "schedule_minute"];
  const show = () => {
    const used = uses[frequency.value] || optional;
    for (const name of optional) {
      const row = document.querySelector(`.form-row.field-${name}, .fieldBox.field-${name}`);
      const input = document.getElementById(`id_${name}`);
      if (!row || !input) continue;
      row.hidden = !used.includes(name);
      input.disabled = row.hidden;
    }
  };
  frequency.addEventListener("change", show);
  show();
}
