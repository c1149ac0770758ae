"""Ingest: read paper metadata from real sources, validate every record, upsert into the store."""
