"""The API tests run the real SearchService over a real slice, indexed by its own build
(fixtures `served_data_dir`, `app`, `client` in tests/conftest.py, shared with the page tests)."""
