"""People and venues: who wrote what (author identities), author profiles and venue statistics,
derived from the store's paper_authors / papers / submissions tables."""
