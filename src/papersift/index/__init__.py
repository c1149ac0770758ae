"""Derived indexes over the store: the lexical (tantivy) index and its analyzers."""
