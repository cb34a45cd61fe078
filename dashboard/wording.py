"""The dashboard's words: scores in words for reviewers (which chapter was copied, how much of
the page and the work), and the other packages' words this app translates.

"62% of the page comes from chapter 12 of work X; 8% of the work appears on the page."
Containment (Broder 1997, "On the resemblance and containment of documents"): the share of one
text's fingerprints (here: characters, as the engine reports it) found in the other.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext


def percent(fraction: float) -> str:
    """Format a fraction in [0, 1] as a whole percentage ("62%"), "<1%" for small non-zero ones.

    Raises:
        ValueError: ``fraction`` is not a number between 0 and 1.
    """
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"a containment must lie between 0 and 1, not {fraction!r}")
    if 0.0 < fraction < 0.005:
        return "<1%"
    return f"{round(fraction * 100)}%"


def duration(span: timedelta) -> str:
    """``span`` (a timedelta, not negative) in words of the active language, in the unit that
    suits it: whole minutes below an hour ("7 minutes", at least 1), whole hours below a day
    ("5 hours"), else days with one decimal ("2.0 days")."""
    minutes = span.total_seconds() / 60
    if minutes < 59.5:
        n = max(1, round(minutes))
        return ngettext("%(n)s minute", "%(n)s minutes", n) % {"n": n}
    if minutes < 23.5 * 60:
        n = round(minutes / 60)
        return ngettext("%(n)s hour", "%(n)s hours", n) % {"n": n}
    return _("%(n)s days") % {"n": round(minutes / 1440, 1)}


def describe(containment_page: float, containment_work: float, work_title: str,
             sections: Sequence[str] = ()) -> list[str]:
    """Two sentences (translated) saying where the page's text comes from.

    Args:
        containment_page: share of the page's text found in the work, 0..1.
        containment_work: share of the work's text found on the page, 0..1.
        work_title: the work's title.
        sections: titles of the chapters matched, in the work's order
            (``core.chapters.attribute``), may be empty.

    Returns:
        ``[page sentence, work sentence]``, in the active language.

    Raises:
        ValueError: a containment outside 0..1.
    """
    page, work = percent(containment_page), percent(containment_work)
    if sections:
        where = _("“%(sections)s” of “%(title)s”") % {
            "sections": _(", ").join(sections), "title": work_title}
    else:
        where = _("“%(title)s”") % {"title": work_title}
    return [
        _("%(share)s of the page comes from %(where)s.") % {"share": page, "where": where},
        _("%(share)s of the work appears on the page.") % {"share": work},
    ]


def passages_count(count: int) -> str:
    """"3 matched passages" in the active language, for ``count`` passages (int >= 0)."""
    return ngettext("%(n)d matched passage", "%(n)d matched passages", count) % {"n": count}



def edit_counts(counts: dict[str, int]) -> str:
    """``counts`` ({comparison edit kind: characters}) in words, e.g. "3 characters changed,
    2 of the same pinyin, 5 in the other script, 4 in the other width"; "identical" when
    nothing changed."""
    words = {
        "changed": lambda n: ngettext("%(n)d character changed", "%(n)d characters changed", n),
        "same_pinyin": lambda n: ngettext("%(n)d of the same pinyin", "%(n)d of the same pinyin",
                                          n),
        "other_script": lambda n: ngettext("%(n)d in the other script",
                                           "%(n)d in the other script", n),
        "other_width": lambda n: ngettext("%(n)d in the other width", "%(n)d in the other width",
                                          n),
        "inserted": lambda n: ngettext("%(n)d character inserted", "%(n)d characters inserted",
                                       n),
        "deleted": lambda n: ngettext("%(n)d character deleted", "%(n)d characters deleted", n),
    }
    parts = [words[kind](counts[kind]) % {"n": counts[kind]} for kind in words if counts.get(kind)]
    return _(", ").join(parts) if parts else _("identical")

# Marked for ``makemessages`` and translated in dashboard/locale: django-axes ships no zh_Hans
# catalog, and Django 5's own catalog lacks these (gettext message ids are global, so the
# translations apply to axes' and Django's own pages).
AXES_LABELS = [
    gettext_noop("access attempt"), gettext_noop("access attempts"),
    gettext_noop("access failure"), gettext_noop("access failures"), gettext_noop("access log"),
    gettext_noop("access logs"), gettext_noop("User Agent"), gettext_noop("IP Address"),
    gettext_noop("Username"), gettext_noop("Path"), gettext_noop("Attempt Time"),
    gettext_noop("Failed Logins"), gettext_noop("Logout Time"), gettext_noop("Locked Out"),
    gettext_noop("Form Data"), gettext_noop("Meta Data"),
    gettext_noop("Clean up expired attempts"),
]

DJANGO_LABELS = [
    gettext_noop("Model name"), gettext_noop("Add link"),
    gettext_noop("Change or view list link"),
    gettext_noop("After you’ve created a user, you’ll be able to edit more user options."),
]
