"""Login brute-force protection (django-axes through dashboard.auth.LoginThrottleBackend)."""

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

PASSWORD = "Dash-board-2026!"


@pytest.fixture
def admin_user_account(django_user_model):
    return django_user_model.objects.create_user("alice", password=PASSWORD, is_staff=True)


def post_login(client: Client, password: str, username: str = "alice"):
    return client.post("/login/", {"username": username, "password": password,
                                   "next": "/"}, REMOTE_ADDR="203.0.113.7")


def test_locked_after_repeated_failures_even_with_right_password(admin_user_account, settings):
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert post_login(client, "wrong").status_code == 200  # the form again, with an error
    locked = post_login(client, "wrong")
    assert locked.status_code == 429
    assert post_login(client, PASSWORD).status_code == 429
    assert "_auth_user_id" not in client.session


def test_success_before_the_limit_resets_the_count(admin_user_account, settings):
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        post_login(client, "wrong")
    assert post_login(client, PASSWORD).status_code == 302
    client.logout()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert post_login(client, "wrong").status_code == 200


def test_other_usernames_are_not_locked(admin_user_account, django_user_model, settings):
    django_user_model.objects.create_user("bob", password=PASSWORD, is_staff=True)
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        post_login(client, "wrong")
    assert post_login(client, PASSWORD, username="bob").status_code == 302


def test_lockout_page_is_translated(admin_user_account, settings):
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-CN")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        response = post_login(client, "wrong")
    assert response.status_code == 429
    assert "登录失败次数过多" in response.content.decode()


def test_client_login_without_request_still_works(admin_user_account):
    assert Client().login(username="alice", password=PASSWORD)
