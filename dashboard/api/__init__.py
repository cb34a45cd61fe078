"""The REST API under /api/v1/ (Django REST framework, OpenAPI 3 schema by drf-spectacular).

Views call the same actions as the admin (``core.*_actions``, ``crawler.*_actions``,
``dashboard.notice_actions``, ``dashboard.token_actions``) and scope every queryset with ``core.scoping.scope``: a holder's
user sees only its holder's rows, any other id answers 404; staff see everything.
"""
