"""In real Chromium, zh-hans and English, 1366 and 390 px wide: the case list's export buttons
(download the filtered list as CSV and XLSX) and the takedown-summary choice of the alert
preferences (choose weekly, save, see it kept). Screenshots go to test-artifacts/."""

from __future__ import annotations

import csv
import io

import pytest
from openpyxl import load_workbook

pytestmark = pytest.mark.browser

LABELS = {"en": ("Export CSV", "Export XLSX", "Takedown summary", "confirmed"),
          "zh-hans": ("导出 CSV", "导出 XLSX", "维权摘要", "已确认")}


@pytest.mark.parametrize("language", ["zh-hans", "en"])
@pytest.mark.parametrize("width", [1366, 390])
def test_case_exports_and_the_summary_choice_in_the_browser(
        scenario_cases, scenario, open_page, browser_login, screenshot, language, width):
    from crawler.models import Case
    from dashboard.alerts.models import AlertPreference

    Case.objects.filter(pk=scenario_cases["big"].pk).update(state="confirmed")
    csv_label, xlsx_label, summary_label, confirmed = LABELS[language]
    page = open_page(language)
    page.set_viewport_size({"width": width, "height": 800})
    browser_login(page, "holder_a")

    page.goto("/crawler/case/?state__exact=confirmed")
    page.wait_for_load_state("networkidle")
    screenshot(page, f"case-list-exports-{language}-{width}")
    button = page.locator("#dash-case-export-csv")
    assert button.is_visible() and button.text_content().strip() == csv_label
    assert page.locator("#dash-case-export-xlsx").text_content().strip() == xlsx_label
    with page.expect_download() as got:
        button.click()
    with open(got.value.path(), encoding="utf-8-sig") as handle:
        body = handle.read()
    rows = list(csv.reader(io.StringIO(body)))
    assert len(rows) == 2 and confirmed in rows[1]  # the one confirmed case the list shows
    with page.expect_download() as got:
        page.locator("#dash-case-export-xlsx").click()
    assert got.value.suggested_filename.endswith(".xlsx")
    with open(got.value.path(), "rb") as handle:
        sheet = load_workbook(io.BytesIO(handle.read())).active
    assert sheet.max_row == 2 and confirmed in [c.value for c in sheet[2]]

    page.goto("/alerts/alertpreference/mine/")
    page.wait_for_load_state("networkidle")
    label = page.locator("label[for=id_summary]")
    assert summary_label in label.inner_text()
    page.select_option("#id_summary", "weekly")
    page.fill("#id_email", "editor@xinghe.example")
    screenshot(page, f"summary-preference-{language}-{width}")
    page.click("input[name=_save]")
    page.wait_for_load_state("networkidle")
    assert AlertPreference.objects.get(user=scenario.users.holder_a).summary == "weekly"
    assert page.evaluate("() => document.scrollingElement.scrollWidth"
                         " <= document.scrollingElement.clientWidth + 1")
