"""What staff and rights holders find around the pages: no plumbing screens (django-celery-beat,
django-axes) unless superuser, a favicon, and a login error that does not assume staff."""

from django.contrib.staticfiles import finders
from django.test import Client

PLUMBING = ["/django_celery_beat/periodictask/", "/django_celery_beat/crontabschedule/",
            "/axes/accessattempt/", "/axes/accesslog/"]


def client_for(user, language="zh-hans") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def test_plumbing_screens_are_for_superusers_only(scenario, django_user_model):
    staff = client_for(scenario.users.staff)
    index = staff.get("/").content.decode()
    assert "/django_celery_beat/" not in index and "/axes/" not in index
    for url in PLUMBING:
        assert staff.get(url).status_code == 403, url
    assert client_for(scenario.users.holder_a).get(PLUMBING[0]).status_code == 403
    root = django_user_model.objects.create_superuser("root", password="Root-pass-2026!")
    superuser = client_for(root)
    assert "/django_celery_beat/" in superuser.get("/").content.decode()
    for url in PLUMBING:
        assert superuser.get(url).status_code == 200, url


def test_every_page_names_a_favicon_that_exists(scenario):
    page = client_for(scenario.users.holder_a).get("/crawler/match/").content.decode()
    assert 'rel="icon"' in page and finders.find("dashboard/favicon.svg")


def test_login_error_does_not_say_staff_account(db):
    for language, expected in (("en", "password is wrong"), ("zh-hans", "密码不正确")):
        page = Client(HTTP_ACCEPT_LANGUAGE=language).post(
            "/login/", {"username": "nobody", "password": "wrong"}).content.decode()
        assert expected in page and "staff" not in page.lower() and "工作人员" not in page


def test_one_score_format_percent(scenario):
    client = client_for(scenario.users.staff)
    overview = client.get("/").content.decode()
    assert "86%" in overview and "0.86" not in overview
    evidence = client.get(f"/crawler/match/{scenario.matches[0].pk}/change/").content.decode()
    assert "综合得分 86%" in evidence and "0.86" not in evidence
