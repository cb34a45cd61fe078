"""Django-free libraries of the crawler app."""
