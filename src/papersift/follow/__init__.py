"""Following what is new: saved searches, what a user has been shown ("new since last visit"),
private feed tokens and digests. Tables of their own in the store's database (schema.py)."""
