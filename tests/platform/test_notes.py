"""Stored notes (core.notes): a coded note reads in the active language, its nested notes
too; plain text, and text that merely looks coded, reads as it was written."""

from django.utils import translation
from django.utils.translation import gettext_noop

from core import notes


def test_coded_notes_read_in_the_active_language_and_plain_text_as_is():
    cancelled = notes.coded("scan_cancelled", gettext_noop("cancelled by %(user)s"), user="li")
    with translation.override("zh-hans"):
        assert notes.in_words(cancelled) == "已由 li 取消"
        nested = notes.coded("takedown_check_note", gettext_noop(
            "takedown check #%(check)s at %(time)s UTC: %(outcome)s, %(status)s, text SHA-256 "
            "%(digest)s; %(note)s"), check=7, time="2026-11-25 01:00", outcome="removed",
            status=notes.coded("no_answer", gettext_noop("no answer")), digest="-",
            note="HTTP 404")
        assert notes.in_words(nested) == (
            "删除核查 #7，2026-11-25 01:00 UTC：removed，无应答，文字 SHA-256 -；HTTP 404")
        for plain in ("cancelled by li", 'coded:{"code": "x"}', "coded:not json",
                      'coded:{"code": "x", "msg": "%(missing)s", "params": {}}', ""):
            assert notes.in_words(plain) == plain and notes.code_of(plain) == ""
    assert notes.in_english(cancelled) == "cancelled by li"
    assert (notes.code_of(cancelled), notes.params_of(cancelled)) == ("scan_cancelled",
                                                                      {"user": "li"})


def test_stored_prefix_finds_the_notes_of_one_code_only():
    stored = notes.coded("not_queued", gettext_noop("Not queued yet (%(error)s)"), error="x")
    assert stored.startswith(notes.stored_prefix("not_queued"))
    assert not stored.startswith(notes.stored_prefix("not"))  # a code that is a prefix of it
    assert not notes.coded("scan_stuck", gettext_noop("stuck")).startswith(
        notes.stored_prefix("not_queued"))
