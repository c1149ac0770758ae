"""A user's research library: tags, likes and "not interested" marks, notes and reading state
kept beside the papers (in the store's database file, in tables of its own), their import and
export in citation formats, and recommendations learned from them.

It sits above the store and the vector index and below the interfaces (cli, api, web).
"""
