"""Running papersift past one machine: local Typesense clusters for tests, drills and operators."""
