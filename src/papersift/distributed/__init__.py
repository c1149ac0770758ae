"""Distributed work across machines: embedding on a Dask cluster."""
