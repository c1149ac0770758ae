"""What every encoder of a built model shares: the model's files and tokenizer, its name,
width and prefixes, and the query / passage entry points over `encode_token_ids`, which each
kind implements (a transformer run, or a static model's row sums)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import numpy as np

from papersift.models.built import BuiltModel, load_built


class BuiltModelEncoder:
    BATCH = 32  # texts per encode call unless the caller says otherwise

    def __init__(self, model: str, variant: str | None = None, models_root: str | os.PathLike | None = None,
                 max_tokens: int | None = None):
        from tokenizers import Tokenizer

        self.built: BuiltModel = load_built(model, models_root)
        self.spec = self.built.spec
        self.variant = variant or self.spec.default_variant
        self.max_tokens = max_tokens or self.spec.max_tokens
        self.tokenizer = Tokenizer.from_file(str(self.built.tokenizer_path))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=self.max_tokens)

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def dim(self) -> int:
        return self.spec.dim

    @property
    def cache_key_prefix(self) -> str:
        """What a vector depends on besides its token ids (which already carry the truncation)."""
        return f"{self.spec.name}/{self.variant}"

    def query_input(self, text: str) -> str:
        return self.spec.query_prefix + text

    def passage_input(self, text: str) -> str:
        return self.spec.passage_prefix + text

    def tokenize(self, inputs: Sequence[str]) -> list[list[int]]:
        """Token ids of already-prefixed model inputs, truncated to max_tokens."""
        return [encoding.ids for encoding in self.tokenizer.encode_batch(list(inputs))]

    def encode_token_ids(self, token_lists: Sequence[Sequence[int] | np.ndarray], batch_size: int | None = None,
                         on_batch: Callable[[int], None] | None = None) -> np.ndarray:
        raise NotImplementedError

    def encode_inputs(self, inputs: Sequence[str], batch_size: int | None = None,
                      on_batch: Callable[[int], None] | None = None) -> np.ndarray:
        """Embed already-prefixed model inputs; rows come back in input order."""
        return self.encode_token_ids(self.tokenize(inputs), batch_size, on_batch)

    def encode_queries(self, texts: Sequence[str], batch_size: int | None = None) -> np.ndarray:
        return self.encode_inputs([self.query_input(t) for t in texts], batch_size)

    def encode_passages(self, texts: Sequence[str], batch_size: int | None = None,
                        on_batch: Callable[[int], None] | None = None) -> np.ndarray:
        return self.encode_inputs([self.passage_input(t) for t in texts], batch_size, on_batch)

    def encode_query(self, text: str) -> np.ndarray:
        return self.encode_queries([text])[0]
