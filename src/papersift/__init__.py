"""papersift: a paper search engine (论文检索) for ML conference papers and arXiv."""

__version__ = "0.1.0"
