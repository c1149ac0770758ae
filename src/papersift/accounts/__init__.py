"""Accounts for a shared lab server (`papersift serve --accounts`, docs/accounts.md): users with
argon2 password hashes, invitations, sessions, per-user API tokens and login rate limiting.

Without --accounts nothing here runs: the one local user (component_schema.LOCAL_USER) owns
every library, as on a personal install.
"""
