// A periodic task's form: the crontab chosen, in words of the reader's language, as soon as it
// is chosen (the page says the saved one; the words come from the page, #crontab-words).
"use strict";
const crontab = document.getElementById("id_crontab");
const words = document.querySelector(".form-row.field-crontab_words .readonly");
const known = document.getElementById("crontab-words");
if (crontab && words && known) {
  const byId = JSON.parse(known.textContent);
  crontab.addEventListener("change", () => { words.textContent = byId[crontab.value] || "-"; });
}
