// The language menu of every dashboard page submits its form when a language is chosen
// (a file, not an inline handler: the Content-Security-Policy allows scripts from files only).
"use strict";
const languageSelect = document.getElementById("dash-language-select");
if (languageSelect) {
  languageSelect.addEventListener("change", () => languageSelect.form.submit());
}
