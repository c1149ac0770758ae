"""Search: query parsing, retrieval (lexical, vector), fusion, facets, behind one service."""
