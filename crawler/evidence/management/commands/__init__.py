"""export_evidence and verify_evidence."""
