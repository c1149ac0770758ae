"""Fetch paper metadata from remote services (OpenReview, arXiv) into page files, resumably.

The pages are the services' own response files; `papersift fetch` then ingests them with
the same readers and pipeline as `papersift ingest`.
"""
