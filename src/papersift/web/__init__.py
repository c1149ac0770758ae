"""The server-rendered page (论文检索): search, paper, author, venue and topic pages over the API's
request parsing; every text escaped by the templates."""
