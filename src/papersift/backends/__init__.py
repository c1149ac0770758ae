"""Search backends beyond the embedded one (Typesense cluster)."""
