"""Helpers shared by the end-to-end tests (never imported by the package)."""
