"""URLs of the alerts outside the admin: the unsubscribe page."""

from django.urls import path

from dashboard.alerts import views

urlpatterns = [path("unsubscribe/<str:token>/", views.unsubscribe, name="alerts_unsubscribe")]
