"""Management commands of the evidence app."""
