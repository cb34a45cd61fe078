"""The core app: rights holders, works, their uploads and ingestion into the fingerprint index."""
