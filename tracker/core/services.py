"""Services of the core app (placeholder until ingestion lands)."""


def forget_work(engine_id: str) -> None:
    """Remove a deleted work's postings and stored text."""
